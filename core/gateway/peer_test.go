package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// initializeWith opens a 2025-11-25 session declaring caps.
func initializeWith(c *httpConn, caps string) {
	c.t.Helper()
	resp := c.do(c.request(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`))
	resp.Body.Close()
	c.sid = resp.Header.Get(headerSessionID)
	if resp.StatusCode != http.StatusOK || c.sid == "" {
		c.t.Fatalf("initialize: status %d", resp.StatusCode)
	}
	c.header.Set(headerProtocol, "2025-11-25")
	if status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: status %d", status)
	}
}

const sampleAsk = `{"asks":[{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}]%s}`

func sampleAnswer(id json.RawMessage, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"role":"assistant","content":{"type":"text","text":%q},"model":"m"}}`, id, text)
}

// TestLegacyPeerIgnoresAnswersThatAreNotItsOwn: the request goes out on
// the call's stream; an unknown id, the right id from another session, and
// a second answer change nothing; the call gets the one right answer.
func TestLegacyPeerIgnoresAnswersThatAreNotItsOwn(t *testing.T) {
	ts := startHTTP(t, newFixture(t, nil))
	c := newHTTPConn(t, ts.URL+"/mcp", nil)
	initializeWith(c, `{"sampling":{}}`)
	other := newHTTPConn(t, ts.URL+"/mcp", nil)
	initializeWith(other, `{"sampling":{}}`)

	resp := c.do(c.request(http.MethodPost, callBody(1, "ask", fmt.Sprintf(sampleAsk, ""), "")))
	defer resp.Body.Close()
	ev := newEventReader(resp.Body)
	data, err := ev.next()
	if err != nil {
		t.Fatalf("no request on the call's stream: %v", err)
	}
	req := decodeMessage(t, data)
	if req.Method != protov1.MethodCreateMessage || !bytes.HasPrefix(req.ID, []byte(`"toolgate-`)) {
		t.Fatalf("first message on the stream: %s", data)
	}

	for _, post := range []struct {
		conn *httpConn
		msg  string
	}{
		{c, sampleAnswer(json.RawMessage(`"toolgate-unknown"`), "unknown id")},
		{c, sampleAnswer(json.RawMessage(`12`), "numeric id")},
		{other, sampleAnswer(req.ID, "from another session")},
		{c, sampleAnswer(req.ID, "mine")},
		{c, sampleAnswer(req.ID, "twice")},
	} {
		if status, msgs := post.conn.post(post.msg); status != http.StatusAccepted || len(msgs) != 0 {
			t.Fatalf("posting %s: status %d %+v", post.msg, status, msgs)
		}
	}
	data, err = ev.next()
	if err != nil {
		t.Fatalf("no result: %v", err)
	}
	res := decodeMessage(t, data)
	if !bytes.Equal(res.ID, []byte("1")) || !strings.Contains(string(res.Result), `\"text\":\"mine\"`) {
		t.Fatalf("result: %s", data)
	}
}

// TestLegacyPeerThatNeverAnswers: the backend's wait ends with its context,
// the client is told the request is withdrawn, and the call is answered.
func TestLegacyPeerThatNeverAnswers(t *testing.T) {
	t.Run("http", func(t *testing.T) {
		ts := startHTTP(t, newFixture(t, nil))
		c := newHTTPConn(t, ts.URL+"/mcp", nil)
		initializeWith(c, `{"sampling":{}}`)
		start := time.Now()
		_, msgs := c.post(callBody(1, "ask", fmt.Sprintf(sampleAsk, `,"waitMs":300`), ""))
		checkWithdrawn(t, msgs, time.Since(start))
	})
	t.Run("stdio", func(t *testing.T) {
		c, done := startStdio(t, newFixture(t, nil))
		c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
		c.recv()
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		start := time.Now()
		c.send("%s", callBody(1, "ask", fmt.Sprintf(sampleAsk, `,"waitMs":300`), ""))
		msgs := []message{c.recv(), c.recv(), c.recv()}
		checkWithdrawn(t, msgs, time.Since(start))
		finish(t, c, done)
	})
}

func checkWithdrawn(t *testing.T, msgs []message, took time.Duration) {
	t.Helper()
	if len(msgs) != 3 || msgs[0].Method != protov1.MethodCreateMessage || msgs[1].Method != "notifications/cancelled" {
		t.Fatalf("messages: %+v", msgs)
	}
	var cancelled struct{ RequestID json.RawMessage }
	_ = json.Unmarshal(msgs[1].Params, &cancelled)
	if !bytes.Equal(cancelled.RequestID, msgs[0].ID) {
		t.Errorf("cancelled %s, sent %s", cancelled.RequestID, msgs[0].ID)
	}
	res := string(msgs[2].Result)
	if !strings.Contains(res, `"isError":true`) || !strings.Contains(res, "no answer from the client") || !strings.Contains(res, "deadline exceeded") {
		t.Errorf("result: %s", res)
	}
	if took > 5*time.Second {
		t.Errorf("the call took %v to answer", took)
	}
}

// TestLegacyPeerWaitEndsWithTheSession: a session that ends while its
// client is being asked ends the wait at once.
func TestLegacyPeerWaitEndsWithTheSession(t *testing.T) {
	ts := startHTTP(t, newFixture(t, nil))
	c := newHTTPConn(t, ts.URL+"/mcp", nil)
	initializeWith(c, `{"sampling":{}}`)
	resp := c.do(c.request(http.MethodPost, callBody(1, "ask", fmt.Sprintf(sampleAsk, ""), "")))
	defer resp.Body.Close()
	ev := newEventReader(resp.Body)
	if _, err := ev.next(); err != nil {
		t.Fatal(err)
	}
	del := c.do(c.request(http.MethodDelete, ""))
	del.Body.Close()
	var last message
	for {
		data, err := ev.next()
		if err != nil {
			break
		}
		last = decodeMessage(t, data)
	}
	if !strings.Contains(string(last.Result), "session ended") {
		t.Errorf("last message: %+v %s", last, last.Result)
	}
}

// TestRootsChangedReachesTheHook: notifications/roots/list_changed from a
// client calls Options.RootsChanged with the client's principal.
func TestRootsChangedReachesTheHook(t *testing.T) {
	got := make(chan Caller, 2)
	ts := startHTTP(t, newFixture(t, func(o *Options) {
		o.Tokens = []string{"t0"}
		o.RootsChanged = func(ctx context.Context) {
			c, _ := CallerFrom(ctx)
			got <- c
		}
	}))
	c := newHTTPConn(t, ts.URL+"/mcp", nil)
	c.header.Set("Authorization", "Bearer t0")
	initializeWith(c, `{"roots":{"listChanged":true}}`)
	if status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); status != http.StatusAccepted {
		t.Fatalf("status %d", status)
	}
	select {
	case caller := <-got:
		if caller.Principal != staticPrincipal(0, tokenPrint("t0")) || caller.Session != c.sid {
			t.Errorf("caller %+v", caller)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("RootsChanged was not called")
	}

	// A 2026-07-28 client has no session: the notification names its version.
	modern := newHTTPConn(t, ts.URL+"/mcp", nil)
	modern.header.Set("Authorization", "Bearer t0")
	modern.header.Set(headerProtocol, "2026-07-28")
	if status, _ := modern.post(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`); status != http.StatusAccepted {
		t.Fatalf("status %d", status)
	}
	select {
	case caller := <-got:
		if caller.Principal != staticPrincipal(0, tokenPrint("t0")) || caller.Session != "" {
			t.Errorf("caller %+v", caller)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("RootsChanged was not called for the 2026-07-28 client")
	}
}

// TestLegacyPeerOverStdioEndsWithInput: a stdio client that closes its
// input while it is being asked gets the call answered, and serving ends.
func TestLegacyPeerOverStdioEndsWithInput(t *testing.T) {
	c, done := startStdio(t, newFixture(t, nil))
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send("%s", callBody(1, "ask", fmt.Sprintf(sampleAsk, ""), ""))
	if m := c.recv(); m.Method != protov1.MethodCreateMessage {
		t.Fatalf("first message %+v", m)
	}
	rest := finish(t, c, done)
	if len(rest) != 1 || !strings.Contains(string(rest[0].Result), "closed its input") {
		t.Fatalf("after the input ended: %+v", rest)
	}
}
