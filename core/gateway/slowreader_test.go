package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A client that keeps its connection open but reads nothing of a call's
// event stream loses the stream once a write has waited streamWriteTimeout:
// the call ends when it ends, not when that client goes away.
func TestCallEndsThoughItsClientReadsNothing(t *testing.T) {
	old := streamWriteTimeout
	streamWriteTimeout = 300 * time.Millisecond
	t.Cleanup(func() { streamWriteTimeout = old })
	ended := make(chan struct{})
	f := newFixture(t, func(o *Options) {
		flood := func(_ context.Context, _ json.RawMessage, ev protov1.CallEvents) (*protov1.Result, error) {
			defer close(ended)
			msg := strings.Repeat("x", 8<<10)
			stop := time.Now().Add(time.Second)
			for i := 0; i < 4000 && time.Now().Before(stop); i++ {
				ev.Progress(protov1.Progress{Progress: float64(i), Message: msg})
			}
			return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: "flooded"}}}, nil
		}
		o.Tools = append(o.Tools, Tool{Name: "flood", Description: "Reports large progress for a second, then answers.", Handle: flood})
	})
	ts := httptest.NewServer(f.srv.Handler())
	defer ts.Close()
	c := newHTTPConn(t, ts.URL+endpointPath, nil)
	c.initialize()

	conn := postUnread(t, ts.Listener.Addr().String(), c.sid,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{},"_meta":{"progressToken":"p"}}}`)
	defer conn.Close() // before ts.Close, which waits for the handler
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the call is still blocked reporting progress to a client that reads nothing, 10s after it began")
	}
	// Other clients are served meanwhile and after.
	if _, msgs := c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`); len(msgs) == 0 || !strings.Contains(string(msgs[len(msgs)-1].Result), "still here") {
		t.Errorf("another client's call answered %v", msgs)
	}
}

// postUnread posts body to the session sid on a connection whose receive
// buffer is small and that the test never reads: a client that stops
// reading its answer. The caller closes the connection.
func postUnread(t *testing.T, addr, sid, body string, headers ...string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	extra := ""
	for _, h := range headers {
		extra += h + "\r\n"
	}
	if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%s: %s\r\n%sContent-Length: %d\r\n\r\n%s",
		endpointPath, addr, headerSessionID, sid, extra, len(body), body); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return conn
}
