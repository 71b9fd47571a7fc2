package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// live makes tools/list changeable, so the gateway offers
// tools/list_changed and a client may listen for it.
func live(o *Options) {
	o.Tools[0].LiveDescription = func() string { return "Echoes its text argument." }
}

// until calls poke every 50 ms until ch yields or 10 s pass.
func until[T any](t *testing.T, ch <-chan T, poke func()) T {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		poke()
		select {
		case v := <-ch:
			return v
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("nothing arrived within 10s")
		}
	}
}

// TestGoSDKClientListens: on 2026-07-28 the Go SDK client opens
// subscriptions/listen for tools/list_changed and for each resource it
// subscribes to, and the gateway's broadcasts reach it there.
func TestGoSDKClientListens(t *testing.T) {
	f := newFixture(t, live)
	addr, cancel, done := serve(t, f, "127.0.0.1:0")
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	}()
	changed := make(chan struct{}, 16)
	updated := make(chan string, 16)
	c := gomcp.NewClient(&gomcp.Implementation{Name: "go-sdk-listen", Version: "1.0.0"}, &gomcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *gomcp.ToolListChangedRequest) { changed <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, r *gomcp.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
	})
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	cs, err := c.Connect(ctx, &gomcp.StreamableClientTransport{Endpoint: "http://" + addr.String() + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	until(t, changed, f.srv.ToolsChanged)
	if err := cs.Subscribe(ctx, &gomcp.SubscribeParams{URI: catalogURI}); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if uri := until(t, updated, func() { f.srv.ResourceUpdated(catalogURI) }); uri != catalogURI {
		t.Errorf("updated %s", uri)
	}
}

// TestListenStreamCarriesWhatWasAskedFor: a raw subscriptions/listen gets
// the acknowledgement, then only the kinds it opted in to — log lines since
// it named a log level — each tagged with its id, and ends when the gateway
// shuts down.
func TestListenStreamCarriesWhatWasAskedFor(t *testing.T) {
	f := newFixture(t, live)
	url := startHTTP(t, f).URL + "/mcp"
	c := newHTTPConn(t, url, nil)
	req := c.request(http.MethodPost, `{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{
		"notifications":{"toolsListChanged":true,"promptsListChanged":true},
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},
		"io.modelcontextprotocol/logLevel":"warning"}}}`)
	req.Header.Set(headerProtocol, "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp := c.do(req)
	defer resp.Body.Close()
	ev := newEventReader(resp.Body)
	next := func() message {
		t.Helper()
		data, err := ev.next()
		if err != nil {
			t.Fatalf("listen stream: %v", err)
		}
		return decodeMessage(t, data)
	}
	ack := next()
	if ack.Method != "notifications/subscriptions/acknowledged" ||
		!strings.Contains(string(ack.Params), `"notifications":{"toolsListChanged":true}`) ||
		!strings.Contains(string(ack.Params), `"io.modelcontextprotocol/subscriptionId":"L1"`) {
		t.Fatalf("acknowledgement: %s %s", ack.Method, ack.Params)
	}
	f.srv.NotifyLog("info", "below the level asked for")
	f.srv.ResourceUpdated(catalogURI) // not subscribed to
	f.srv.NotifyLog("error", map[string]string{"msg": "seen"})
	f.srv.ToolsChanged()
	for _, want := range []string{"notifications/message", "notifications/tools/list_changed"} {
		m := next()
		if m.Method != want || !strings.Contains(string(m.Params), `"io.modelcontextprotocol/subscriptionId":"L1"`) {
			t.Fatalf("got %s %s, want %s", m.Method, m.Params, want)
		}
		if want == "notifications/message" && !strings.Contains(string(m.Params), `"seen"`) {
			t.Errorf("log line: %s", m.Params)
		}
	}
	f.srv.Close()
	end := next()
	if string(end.ID) != `"L1"` || end.Result == nil {
		t.Fatalf("listen end: %+v", end)
	}
}

// TestStatelessCallProgressAndLogs: a 2026-07-28 call's progress and log
// lines travel on its own stream before its result, log lines only when the
// request named a log level.
func TestStatelessCallProgressAndLogs(t *testing.T) {
	url := startHTTP(t, newFixture(t, nil)).URL + "/mcp"
	for _, level := range []string{"", "info"} {
		t.Run("level="+level, func(t *testing.T) {
			meta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"`
			if level != "" {
				meta += `,"io.modelcontextprotocol/logLevel":"` + level + `"`
			}
			c := newHTTPConn(t, url, nil)
			req := c.request(http.MethodPost, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"steps","arguments":{"n":2},"_meta":{`+meta+`}}}`)
			req.Header.Set(headerProtocol, "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "steps")
			resp := c.do(req)
			msgs := readMessages(t, resp)
			resp.Body.Close()
			var methods []string
			for _, m := range msgs {
				methods = append(methods, m.Method)
			}
			want := "notifications/progress,notifications/progress,"
			if level != "" {
				want = "notifications/message," + want
			}
			if got := strings.Join(methods, ","); got != want {
				t.Fatalf("messages %q, want %q", got, want)
			}
			if r := lastOf(msgs); string(r.ID) != "5" || !strings.Contains(string(r.Result), `"did 2 steps"`) {
				t.Errorf("result %s", r.Result)
			}
			if resp.Header.Get(headerSessionID) != "" {
				t.Errorf("a 2026-07-28 answer carries %s", headerSessionID)
			}
		})
	}
}

// TestGoSDKClientOverStdioIsAnsweredInOrder: a 2026-07-28 call over stdio
// gets its progress on the shared pipe, under its own progress token.
func TestGoSDKClientOverStdioIsAnsweredInOrder(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=stdio")
	progress := make(chan float64, 16)
	c := gomcp.NewClient(&gomcp.Implementation{Name: "go-sdk-stdio", Version: "1.0.0"}, &gomcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *gomcp.ProgressNotificationClientRequest) { progress <- r.Params.Progress },
	})
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	cs, err := c.Connect(ctx, &gomcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &gomcp.CallToolParams{Name: "steps", Arguments: json.RawMessage(`{"n":3}`)}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("steps: %+v %v", res, err)
	}
	for i := 1; i <= 3; i++ {
		select {
		case p := <-progress:
			if p != float64(i) {
				t.Errorf("progress %d = %v", i, p)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("progress %d never arrived", i)
		}
	}
}

// TestStatelessCancelOverStdio: over stdio a 2026-07-28 request belongs to
// no session, yet notifications/cancelled on the pipe still reaches it, and
// a cancelled call gets no answer.
func TestStatelessCancelOverStdio(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1}`
	c.send(`{"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"block",%s}}`, meta)
	if m := c.recv(); m.Method != "notifications/progress" {
		t.Fatalf("first message %+v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b1"}}`)
	select {
	case err := <-f.cancelled:
		if err != context.Canceled {
			t.Errorf("block saw %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancellation never reached the call")
	}
	c.send(`{"jsonrpc":"2.0","id":"e1","method":"tools/call","params":{"name":"echo","arguments":{"text":"after"},%s}}`, meta)
	if m := c.recv(); string(m.ID) != `"e1"` || !strings.Contains(string(m.Result), `"after"`) {
		t.Fatalf("the next call: %+v %s (a cancelled call must not be answered)", m, m.Result)
	}
	if rest := finish(t, c, done); len(rest) != 0 {
		t.Errorf("after the end: %+v", rest)
	}
}

// TestListenOverStdio: a listen shares the pipe with everything else, and
// notifications/cancelled ends it with its result.
func TestListenOverStdio(t *testing.T) {
	f := newFixture(t, live)
	c, done := startStdio(t, f)
	c.send(`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":[%q]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, catalogURI)
	if m := c.recv(); m.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("acknowledgement: %+v", m)
	}
	f.srv.ResourceUpdated(catalogURI)
	f.srv.NotifyLog("error", "not asked for")
	f.srv.ToolsChanged()
	for _, want := range []string{"notifications/resources/updated", "notifications/tools/list_changed"} {
		if m := c.recv(); m.Method != want || !strings.Contains(string(m.Params), `"io.modelcontextprotocol/subscriptionId":7`) {
			t.Fatalf("got %s %s, want %s", m.Method, m.Params, want)
		}
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	rest := finish(t, c, done)
	if len(rest) != 0 {
		// A cancelled request gets no answer, the listen included.
		t.Errorf("after the cancel: %+v", rest)
	}
}
