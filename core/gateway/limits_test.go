package gateway

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
)

// rawPing sends one complete ping POST on conn and reads its answer, leaving
// the connection open as a keep-alive client would.
func rawPing(t *testing.T, conn net.Conn, br *bufio.Reader) {
	t.Helper()
	req := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(pingBody), pingBody)
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// closedByServer tells whether the server has closed conn.
func closedByServer(conn net.Conn) bool {
	_ = conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := conn.Read(make([]byte, 1))
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

func TestServeHTTPIdleConnectionsMakeRoomForNewClients(t *testing.T) {
	const limit, idle = 50, 300
	f := newFixture(t, func(o *Options) { o.MaxConnections = limit })
	addr, _, _ := serve(t, f, "127.0.0.1:0")

	// A client in the middle of a slow body is busy, not idle: it is kept.
	slow, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := io.WriteString(slow, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}

	conns := make([]net.Conn, 0, idle)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range idle {
		c, err := net.Dial("tcp", addr.String())
		if err != nil {
			t.Fatalf("dial after %d connections: %v", len(conns), err)
		}
		conns = append(conns, c)
		rawPing(t, c, bufio.NewReader(c))
	}

	c := newHTTPConn(t, "http://"+addr.String()+"/mcp", nil)
	c.initialize()
	if status, msgs := c.post(callBody(1, "echo", `{"text":"still served"}`, "")); status != 200 || !bytes.Contains(msgs[0].Result, []byte("still served")) {
		t.Fatalf("new client behind %d idle connections: %d %+v", idle, status, msgs)
	}
	open := 0
	for _, c := range conns {
		if !closedByServer(c) {
			open++
		}
	}
	if open > limit {
		t.Errorf("%d of %d idle connections still open, want at most %d", open, idle, limit)
	}
	if closedByServer(slow) {
		t.Errorf("the connection sending a body was closed to make room")
	}
}

func TestServeHTTPCutsSlowBodiesAndIdleConnections(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.ReadTimeout = time.Second
		o.IdleTimeout = 500 * time.Millisecond
	})
	addr, _, _ := serve(t, f, "127.0.0.1:0")

	slow, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	start := time.Now()
	if _, err := io.WriteString(slow, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	cut := make(chan struct{})
	go func() {
		defer close(cut)
		for range 5 { // one byte every 2 s, until the server gives up
			time.Sleep(2 * time.Second)
			if _, err := io.WriteString(slow, " "); err != nil {
				return
			}
		}
	}()
	_ = slow.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(slow); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("a body trickled one byte every 2s was not cut within 5s")
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("slow body cut after %v, want about the 1s read timeout", d)
	}
	slow.Close()
	<-cut

	idle, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	rawPing(t, idle, bufio.NewReader(idle))
	time.Sleep(time.Second)
	if !closedByServer(idle) {
		t.Errorf("keep-alive connection still open 1s into a 500ms idle timeout")
	}
}

func TestServeHTTPLongCallOutlivesTheReadTimeout(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.ReadTimeout = 100 * time.Millisecond })
	addr, _, _ := serve(t, f, "127.0.0.1:0")
	c := newHTTPConn(t, "http://"+addr.String()+"/mcp", nil)
	c.initialize()
	// "slow" takes 200 ms: twice the read timeout, which bounds only reading.
	if status, msgs := c.post(callBody(1, "slow", "", "")); status != 200 || len(msgs) != 1 || !bytes.Contains(msgs[0].Result, []byte("slow done")) {
		t.Fatalf("call longer than the read timeout: %d %+v", status, msgs)
	}
}

func TestServeHTTPCallsCutByShutdownSaySo(t *testing.T) {
	logs := &syncWriter{w: &bytes.Buffer{}}
	f := newFixture(t, func(o *Options) {
		o.ShutdownGrace = time.Second
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: logs})
	})
	addr, cancel, done := serve(t, f, "127.0.0.1:0")
	c := newHTTPConn(t, "http://"+addr.String()+"/mcp", nil)
	c.initialize()
	type reply struct {
		resp *http.Response
		err  error
	}
	got := make(chan reply, 1)
	req := c.request(http.MethodPost, callBody(1, "block", "", ""))
	go func() {
		resp, err := c.hc.Do(req)
		got <- reply{resp, err}
	}()
	<-f.started
	cancel()
	// Readiness fails at once, so balancers stop sending work, while the call
	// may still finish.
	ready := false
	for deadline := time.Now().Add(500 * time.Millisecond); !ready && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr.String() + readyPath); err == nil {
			ready = resp.StatusCode == http.StatusServiceUnavailable
			resp.Body.Close()
		}
	}
	if !ready {
		t.Errorf("/readyz not 503 500ms into shutdown")
	}
	if !strings.Contains(logs.String(), "shutting down: readiness fails at once") {
		t.Errorf("shutdown not logged when it began:\n%s", logs)
	}
	var r reply
	select {
	case r = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to a call running at shutdown")
	}
	if r.err != nil {
		t.Fatalf("call running at shutdown: %v, want an answer", r.err)
	}
	defer r.resp.Body.Close()
	msgs := readMessages(t, r.resp)
	if r.resp.StatusCode != 200 || len(msgs) != 1 || !strings.Contains(string(msgs[0].Result), "the gateway is shutting down") ||
		!strings.Contains(string(msgs[0].Result), `"isError":true`) {
		t.Errorf("call cut by shutdown: %d %+v, want an isError result saying the gateway is shutting down", r.resp.StatusCode, msgs)
	}
	if err := <-done; err != nil {
		t.Errorf("ServeHTTP = %v", err)
	}
	<-f.cancelled
}

func TestHTTPCORS(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.AllowedOrigins = []string{"https://app.example.com"}
		o.Tokens = []string{staticToken}
	})
	ts := startHTTP(t, f)
	preflight := func(origin string) answer {
		return send(t, http.MethodOptions, ts.URL+"/mcp", "", func(r *http.Request) {
			r.Header.Set("Origin", origin)
			r.Header.Set("Access-Control-Request-Method", "POST")
			r.Header.Set("Access-Control-Request-Headers", "authorization, content-type, mcp-session-id")
		})
	}
	a := preflight("https://app.example.com")
	if a.status != http.StatusNoContent || a.header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Fatalf("preflight of an allowed origin: %d %v", a.status, a.header)
	}
	for _, h := range []string{"Authorization", "Content-Type", headerSessionID, "Mcp-Protocol-Version", "Last-Event-ID"} {
		if !strings.Contains(a.header.Get("Access-Control-Allow-Headers"), h) {
			t.Errorf("Access-Control-Allow-Headers %q lacks %s", a.header.Get("Access-Control-Allow-Headers"), h)
		}
	}
	for _, m := range []string{"GET", "POST", "DELETE"} {
		if !strings.Contains(a.header.Get("Access-Control-Allow-Methods"), m) {
			t.Errorf("Access-Control-Allow-Methods %q lacks %s", a.header.Get("Access-Control-Allow-Methods"), m)
		}
	}
	if a := preflight("https://evil.example"); a.status != http.StatusForbidden || a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight of another origin: %d %v", a.status, a.header)
	}
	// The real request gets the origin back and may read the session id.
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+staticToken)
	req.Header.Set("Origin", "https://app.example.com")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), headerSessionID) {
		t.Errorf("initialize from an allowed origin: %d %v", resp.StatusCode, resp.Header)
	}
}
