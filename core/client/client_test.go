package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/core/client/gatewaytest"
)

var bins *gatewaytest.Binaries

func TestMain(m *testing.M) { gatewaytest.Main(m, &bins, func() error { return goleak.Find() }) }

func connect(t *testing.T, url string, opts ...func(*Options)) *Client {
	t.Helper()
	o := Options{URL: url}
	for _, f := range opts {
		f(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Connect(ctx, o, "client-test", "1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	// hello starts with the gateway; wait until its tools are listed.
	for deadline := time.Now().Add(30 * time.Second); ; {
		p, err := c.PluginDo(ctx, PluginGet, "hello")
		if err == nil && p.State == "running" {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("hello did not start: %v %+v", err, p)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCallToolThroughCallTool(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))
	c := connect(t, gw.URL)
	ctx := context.Background()

	if name, _ := c.Server(); name != "toolgate" {
		t.Errorf("server name %q", name)
	}
	res, err := c.CallTool(ctx, "x_hello_greet", map[string]any{"name": "Ada"})
	if err != nil || res.IsError || res.Text() != "Hello, Ada!" || string(res.JSON()) != `{"greeting":"Hello, Ada!"}` {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	res, err = c.CallTool(ctx, "x_hello_greet", map[string]any{"name": ""})
	if err != nil || !res.IsError || res.Text() != "name must not be empty" {
		t.Errorf("isError result = %+v, %v", res, err)
	}
	res, err = c.CallTool(ctx, "x_hello_pixel", nil)
	if err != nil || len(res.Content) != 1 || res.Content[0].Type != "image" {
		t.Fatalf("image = %+v, %v", res, err)
	}
	if b, err := res.Content[0].Bytes(); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("image bytes %q, %v", b, err)
	}

	var seen []Progress
	res, err = c.CallTool(ctx, "x_hello_count", map[string]any{"to": 3}, WithProgress(func(p Progress) { seen = append(seen, p) }))
	if err != nil || res.Text() != "counted to 3" || len(seen) != 3 || seen[2] != (Progress{Progress: 3, Total: 3, Message: "counted 3"}) {
		t.Errorf("progress %+v, result %+v, %v", seen, res, err)
	}

	list, err := c.ListTools(ctx, "", Page{})
	if err != nil || list.Total != 4 || len(list.Plugins) != 1 {
		t.Errorf("ListTools = %+v, %v", list, err)
	}
	found, err := c.FilterTools(ctx, Filter{Query: "send text back"})
	if err != nil || len(found.Tools) == 0 || found.Tools[0].Name != "x_hello_echo" {
		t.Errorf("FilterTools = %+v, %v", found, err)
	}
	_, err = c.DescribeTool(ctx, "x_hello_nope")
	var te *ToolError
	if !errors.As(err, &te) || te.Tool != "describe_tool" {
		t.Errorf("DescribeTool of an unknown name: %v", err)
	}
	rc, err := c.ReadResource(ctx, "hello://readme")
	if err != nil || len(rc) != 1 || !strings.Contains(rc[0].Text, "greets") {
		t.Errorf("ReadResource = %+v, %v", rc, err)
	}
	p, err := c.GetPrompt(ctx, "x_hello_welcome", map[string]string{"name": "Ada"})
	if err != nil || len(p.Messages) != 1 || p.Messages[0].Role != "user" || p.Messages[0].Content.Text != "Please welcome Ada warmly." {
		t.Errorf("GetPrompt = %+v, %v", p, err)
	}
}

// A cancelled context tells the gateway (notifications/cancelled) and ends
// the call at once instead of after 100 steps of 100 ms.
func TestCancel(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))
	c := connect(t, gw.URL)
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	_, err := c.CallTool(ctx, "x_hello_count", map[string]any{"to": 100, "delay_ms": 100}, WithProgress(func(Progress) { cancel() }))
	if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
		t.Errorf("cancelled call: %v after %s", err, time.Since(start))
	}
	res, err := c.CallTool(context.Background(), "x_hello_echo", map[string]any{"text": "after"})
	if err != nil || res.Text() != "after" {
		t.Errorf("call after cancel = %+v, %v", res, err)
	}
}

// After a gateway restart the old session is unknown (404): concurrent
// calls share one new session, and the listening stream follows it.
func TestRenewSessionAfterRestart(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))
	var mu sync.Mutex
	var heard []string
	c := connect(t, gw.URL, func(o *Options) {
		o.OnMessage = func(msg []byte) {
			mu.Lock()
			heard = append(heard, string(msg))
			mu.Unlock()
		}
	})
	old := c.conn.SessionID()
	gw.Restart()

	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A core tool: the restarted gateway's plugins may still be starting.
			p, err := c.PluginDo(context.Background(), PluginGet, "hello")
			if err == nil && p.Name != "hello" {
				err = fmt.Errorf("call %d: plugin %+v", i, p)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if now := c.conn.SessionID(); now == old || now == "" {
		t.Errorf("session %q after restart, was %q", now, old)
	}
	if n := c.conn.renewals; n != 1 {
		t.Errorf("%d renewals for one restart", n)
	}
	// The gateway logs catalog changes to every session's listening stream:
	// restarting hello must reach this client on the renewed session. The
	// client opens that stream after the renewal, in the background, and a
	// change before it is open is not replayed: restart again until one is
	// heard.
	deadline := time.Now().Add(20 * time.Second)
	var restarted time.Time
	for ; ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		got := strings.Join(heard, "\n")
		mu.Unlock()
		if strings.Contains(got, "catalog_changed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no catalog_changed on the listening stream after renewal; heard:\n%s", got)
		}
		if time.Since(restarted) > 3*time.Second {
			if _, err := c.PluginDo(context.Background(), PluginRestart, "hello"); err != nil {
				t.Fatal(err)
			}
			restarted = time.Now()
		}
	}
}

func TestUnreachable(t *testing.T) {
	c, err := NewConn(Options{URL: "http://" + gatewaytest.FreeAddr(t) + "/mcp", ReconnectWindow: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`), nil)
	var ue *UnreachableError
	if !errors.As(err, &ue) || time.Since(start) < 250*time.Millisecond {
		t.Errorf("err %v after %s", err, time.Since(start))
	}
	if _, err := c.Send(context.Background(), []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`), nil); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("request before initialize: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
}

func TestNewConnChecksURL(t *testing.T) {
	for _, u := range []string{"127.0.0.1:8700/mcp", "localhost:8700", "ftp://127.0.0.1/mcp", "http:///mcp", "http://[::1/mcp"} {
		_, err := NewConn(Options{URL: u})
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), fmt.Sprintf("%q is not an http:// or https:// URL", u)) {
			t.Errorf("URL %q: %v", u, err)
		}
	}
	for _, u := range []string{DefaultURL, "https://gw.example.com/mcp"} {
		c, err := NewConn(Options{URL: u})
		if err != nil {
			t.Errorf("URL %q: %v", u, err)
			continue
		}
		_ = c.Close()
	}
}

// A refused token is reported with the gateway's words on one line, without
// the newline its body ends with.
func TestWrongToken(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), "listen {\n  token = \"s3cret\"\n}\n"))
	_, err := Connect(context.Background(), Options{URL: gw.URL, Token: "wrong"}, "client-test", "1")
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 401 {
		t.Fatalf("Connect with a wrong token: %v", err)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.HasSuffix(msg, "(check --token or $TOOLGATE_TOKEN): unauthorized: a valid bearer token is required") {
		t.Errorf("message %q", msg)
	}
}

// A message the gateway refuses to read (here, too large) fails with the
// gateway's reason, not the JSON-RPC error object around it.
func TestTooLargeSaysWhy(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))
	c := connect(t, gw.URL)
	_, err := c.CallTool(context.Background(), "x_hello_echo", map[string]any{"text": strings.Repeat("x", 5<<20)})
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 413 {
		t.Fatalf("5 MB call: %v", err)
	}
	if he.Body != "request body exceeds the limit of 4194304 bytes (gateway.max_request_bytes)" {
		t.Errorf("message %q", err)
	}
}

// A gateway killed during a call was reached: the call fails as a lost
// connection whose outcome is unknown, not as a gateway that cannot be
// reached.
func TestGatewayKilledMidCall(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))
	c := connect(t, gw.URL, func(o *Options) { o.ReconnectWindow = 200 * time.Millisecond })
	go func() {
		time.Sleep(500 * time.Millisecond)
		gw.Kill()
	}()
	_, err := c.CallTool(context.Background(), "x_hello_count", map[string]any{"to": 50, "delay_ms": 100})
	var ue *UnreachableError
	if !errors.Is(err, ErrConnectionLost) || errors.As(err, &ue) || !strings.Contains(err.Error(), "may or may not have run") {
		t.Errorf("call during a kill: %v", err)
	}
}
