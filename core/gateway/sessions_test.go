package gateway

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHTTPSessionCap(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxSessions = 2 })
	url := startHTTP(t, f).URL + "/mcp"
	first := newHTTPConn(t, url, nil)
	first.initialize()
	newHTTPConn(t, url, nil).initialize()

	over := newHTTPConn(t, url, nil)
	status, msgs := over.post(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if status != http.StatusServiceUnavailable || len(msgs) != 1 || msgs[0].Error == nil ||
		!strings.Contains(msgs[0].Error.Message, "too many sessions") || !strings.Contains(msgs[0].Error.Message, "(listen.max_sessions)") || string(msgs[0].ID) != "7" {
		t.Fatalf("initialize over the cap: %d %+v, want 503 with a JSON-RPC error for id 7", status, msgs)
	}
	// Ending a session frees its place.
	resp := first.do(first.request(http.MethodDelete, ""))
	resp.Body.Close()
	over.initialize()
}

func TestHTTPIdleSessionsExpireOnATimer(t *testing.T) {
	const idle = 400 * time.Millisecond
	f := newFixture(t, func(o *Options) { o.SessionIdleTimeout = idle })
	url := startHTTP(t, f).URL + "/mcp"
	quiet := newHTTPConn(t, url, nil)
	quiet.initialize()
	listener := newHTTPConn(t, url, nil)
	listener.initialize()
	busy := newHTTPConn(t, url, nil)
	busy.initialize()

	// The listening stream ends by itself after half the idle timeout; a
	// client that does not come back lets its session expire.
	resp := listener.do(listener.request(http.MethodGet, ""))
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		resp.Body.Close()
		<-ended
		t.Fatal("listening stream still open 5s into a 400ms session idle timeout")
	}
	resp.Body.Close()

	deadline := time.Now().Add(3 * idle)
	for time.Now().Before(deadline) {
		if status, _ := busy.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusOK {
			t.Fatalf("a session in use expired: ping answered %d", status)
		}
		time.Sleep(idle / 4)
	}
	for name, c := range map[string]*httpConn{"quiet": quiet, "listener": listener} {
		if status, _ := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusNotFound {
			t.Errorf("%s session after %v idle: ping answered %d, want 404", name, 3*idle, status)
		}
	}
}
