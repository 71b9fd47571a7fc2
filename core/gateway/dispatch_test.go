package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// exchange sends one raw message to an initialized session and returns every
// message written back for it: the answer last, progress and logs before it.
type exchange func(t *testing.T, msg string) []message

// transports runs fn once over stdio and once over streamable HTTP.
func transports(t *testing.T, fn func(t *testing.T, send exchange)) {
	t.Run("stdio", func(t *testing.T) {
		c, done := startStdio(t, newFixture(t, nil))
		c.initialize()
		fn(t, func(t *testing.T, msg string) []message {
			t.Helper()
			c.send("%s", msg)
			var out []message
			for {
				m := c.recv()
				out = append(out, m)
				if m.Method == "" {
					return out
				}
			}
		})
		finish(t, c, done)
	})
	t.Run("http", func(t *testing.T) {
		c := newHTTPConn(t, startHTTP(t, newFixture(t, nil)).URL+"/mcp", nil)
		c.initialize()
		fn(t, func(t *testing.T, msg string) []message {
			t.Helper()
			status, msgs := c.post(msg)
			if len(msgs) == 0 {
				t.Fatalf("%s: status %d and no answer", msg, status)
			}
			return msgs
		})
	})
}

func lastOf(msgs []message) message { return msgs[len(msgs)-1] }

// Integer ids beyond float64's 53-bit mantissa, and strings with escapes, come
// back exactly as sent on results, errors and answers that follow progress.
func TestIDsComeBackByteForByte(t *testing.T) {
	ids := []string{
		`9007199254740993`, `-9007199254740993`, `12345678901234567890123`, `0`,
		`"s-1"`, `"\u0041\n"`, `""`, `"a&b<c>"`, "\"\u2028\"",
	}
	transports(t, func(t *testing.T, send exchange) {
		for _, id := range ids {
			for _, tc := range []struct {
				name, msg string
				check     func(message) bool
			}{
				{"result", `{"jsonrpc":"2.0","id":%s,"method":"ping"}`,
					func(m message) bool { return m.Error == nil && m.Result != nil }},
				{"mcp-go error", `{"jsonrpc":"2.0","id":%s,"method":"no/such/method"}`,
					func(m message) bool { return m.Error != nil && m.Error.Code == -32601 }},
				{"gateway's own answer", `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"nope"}}`,
					func(m message) bool { return bytes.Contains(m.Result, []byte(`"isError":true`)) }},
				{"after progress", `{"jsonrpc":"2.0","id":%[1]s,"method":"tools/call","params":{"name":"steps","arguments":{"n":2},"_meta":{"progressToken":%[1]s}}}`,
					func(m message) bool { return bytes.Contains(m.Result, []byte("did 2 steps")) }},
			} {
				msgs := send(t, fmt.Sprintf(tc.msg, id))
				got := lastOf(msgs)
				if string(got.ID) != id || !tc.check(got) {
					t.Errorf("%s with id %s: answered id %s, result %s, error %+v", tc.name, id, got.ID, got.Result, got.Error)
				}
				for _, m := range msgs[:len(msgs)-1] {
					var p struct{ ProgressToken json.RawMessage }
					if m.Method == "notifications/progress" && (json.Unmarshal(m.Params, &p) != nil || string(p.ProgressToken) != id) {
						t.Errorf("%s with id %s: progress carried token %s", tc.name, id, p.ProgressToken)
					}
				}
			}
		}
	})
}

// Ids JSON-RPC and MCP do not allow are refused with -32600 and a null id,
// and messages that are neither request, notification nor response get -32600.
func TestInvalidRequestsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name, msg, wantID, wantText string
	}{
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null", "id must be a string or an integer, not an object"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, "null", "not an array"},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", "not true"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "null", "not 1.5"},
		{"exponent id", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, "null", "not 1e3"},
		{"null id on a request", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, "null", "not null"},
		{"id out of range", `{"jsonrpc":"2.0","id":1` + strings.Repeat("0", 400) + `,"method":"ping"}`, "null", "out of range"},
		{"id without method", `{"jsonrpc":"2.0","id":7}`, "7", "no method"},
		{"big id without method", `{"jsonrpc":"2.0","id":9007199254740993,"params":{}}`, "9007199254740993", "no method"},
		{"bad id without method", `{"jsonrpc":"2.0","id":false}`, "null", "no method"},
		{"nothing at all", `{"jsonrpc":"2.0"}`, "null", "no method"},
		{"method and result", `{"jsonrpc":"2.0","id":"r","method":"ping","result":{}}`, `"r"`, "both a method and a result"},
		{"method of the wrong type", `{"jsonrpc":"2.0","id":3,"method":17}`, "3", `"method" must be a string, not a number`},
		{"not an object", `"ping"`, "null", "must be a JSON object, not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			transports(t, func(t *testing.T, send exchange) {
				msgs := send(t, tc.msg)
				m := lastOf(msgs)
				if len(msgs) != 1 || m.Error == nil || m.Error.Code != codeInvalidRequest || string(m.ID) != tc.wantID ||
					!strings.Contains(m.Error.Message, tc.wantText) {
					t.Errorf("%s: got id %s error %+v (%d messages), want -32600 with id %s naming %q",
						tc.name, m.ID, m.Error, len(msgs), tc.wantID, tc.wantText)
				}
				// The session still serves requests after a refused one.
				if m := lastOf(send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)); m.Error != nil || string(m.ID) != "1" {
					t.Errorf("%s: ping afterwards: id %s error %+v", tc.name, m.ID, m.Error)
				}
			})
		})
	}
}

// Params that are not an object (JSON-RPC's by-position form, which MCP
// never uses) get -32602 with the request's id, in words rather than in
// terms of a Go struct; null params are as good as none.
func TestParamsMustBeAnObject(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":3,"method":"ping","params":[]}`, "params must be an object, not an array"},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"x"}`, `params must be an object, not "x"`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":7}`, "params must be an object, not 7"},
	} {
		transports(t, func(t *testing.T, send exchange) {
			m := lastOf(send(t, tc.msg))
			if m.Error == nil || m.Error.Code != codeInvalidParams || string(m.ID) != "3" || !strings.Contains(m.Error.Message, tc.want) {
				t.Errorf("%s: got id %s error %+v, want -32602 with id 3 naming %q", tc.msg, m.ID, m.Error, tc.want)
			}
			if m := lastOf(send(t, `{"jsonrpc":"2.0","id":4,"method":"ping","params":null}`)); m.Error != nil || string(m.ID) != "4" {
				t.Errorf("ping with null params: id %s error %+v", m.ID, m.Error)
			}
		})
	}
}

// A client's response, and a notification with a null id, are still taken
// without an answer.
func TestResponsesAndNotificationsGetNoAnswer(t *testing.T) {
	f := newFixture(t, nil)
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	c.initialize()
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-1,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
		`{"jsonrpc":"2.0","id":null,"method":"notifications/roots/list_changed"}`,
	} {
		if status, msgs := c.post(msg); status != http.StatusAccepted || len(msgs) != 0 {
			t.Errorf("%s: status %d %+v, want 202 and no answer", msg, status, msgs)
		}
	}
}

// An oversized request is answered with the id it names only when that id
// is one a request may have.
func TestOversizedRequestKeepsOnlyAValidID(t *testing.T) {
	c, done := startStdio(t, newFixture(t, func(o *Options) { o.MaxRequestBytes = 256 }))
	big := strings.Repeat("x", 1000)
	for _, tc := range []struct{ id, want string }{
		{`9007199254740993`, `9007199254740993`},
		{`1.5`, `null`},
		{`{"a":1}`, `null`},
	} {
		c.send(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, tc.id, big)
		c.send(`{"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}},"jsonrpc":"2.0","id":%s}`, big, tc.id)
		for range 2 {
			if m := c.recv(); string(m.ID) != tc.want || m.Error == nil || m.Error.Code != codeInvalidRequest {
				t.Errorf("oversized request with id %s: answered id %s error %+v, want id %s", tc.id, m.ID, m.Error, tc.want)
			}
		}
	}
	finish(t, c, done)
}

// notifications/cancelled stops the call with exactly the id it names: ids
// mcp-go would confuse (2^53 and 2^53+1, "7" and 7) are told apart.
func TestCancelNamesOneRequestExactly(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	c.initialize()
	ids := []string{`9007199254740993`, `9007199254740992`, `"7"`, `7`}
	for _, id := range ids {
		c.send(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"block","_meta":{"progressToken":%s}}}`, id, id)
		if m := c.recv(); m.Method != "notifications/progress" {
			t.Fatalf("call %s: got %+v, want its progress", id, m)
		}
		<-f.started
	}
	// Cancel the first of each pair: the second must still be running.
	for _, pair := range [][2]string{{ids[0], ids[1]}, {ids[2], ids[3]}} {
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, pair[0])
		select {
		case <-f.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatalf("cancelling %s reached no handler", pair[0])
		}
		select {
		case <-f.cancelled:
			t.Fatalf("cancelling %s also cancelled another call", pair[0])
		case <-time.After(100 * time.Millisecond):
		}
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, pair[1])
		select {
		case <-f.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatalf("cancelling %s reached no handler: its call was cancelled in place of another", pair[1])
		}
	}
	if rest := finish(t, c, done); len(rest) != 0 {
		t.Errorf("cancelled calls were answered: %+v", rest)
	}
}
