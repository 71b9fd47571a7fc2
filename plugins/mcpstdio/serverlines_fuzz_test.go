package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// FuzzServerLines feeds what an MCP server writes on stdout, any bytes at
// all, through the line filter and then, as the transport sorts them, to the
// session's notification and request handlers. The filter passes on exactly
// the lines that are JSON objects, one a line; every request the server makes
// is answered under its own id; every event is one the host can route; and
// nothing is left waiting afterwards.
func FuzzServerLines(f *testing.F) {
	for _, s := range []string{
		"banner\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}\r\n\n",
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"a":[1]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
		`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"x","status":"working","ttl":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"file:///a"}}`,
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
		`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"_meta":{"progressToken":"t","io.modelcontextprotocol/related-task":{"taskId":"x"}}}}`,
		`{"jsonrpc":"2.0","id":2.5,"method":"elicitation/create","params":null}`,
		`{"jsonrpc":"2.0","id":3,"method":"roots/list","params":[1]}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		"not {json\n  {\"a\":1}{\"b\":2}\n{\"unterminated\":",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		passed, err := io.ReadAll(newJSONLines(bytes.NewReader(out), hclog.NewNullLogger()))
		if err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, line := range bytes.Split(out, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) > 0 && line[0] == '{' && json.Valid(line) {
				want = append(append(want, line...), '\n')
			}
		}
		if !bytes.Equal(passed, want) {
			t.Fatalf("from %q passed on %q, want %q", out, passed, want)
		}

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := &session{
			log: hclog.NewNullLogger(), ctx: ctx, cancel: cancel,
			routes: map[string]*callRoute{}, running: map[*callRoute]struct{}{}, asking: map[string]context.CancelFunc{},
			wake: make(chan struct{}, 1), stopping: make(chan struct{}),
		}
		s.emit = func(e protov1.Event) {
			switch {
			case e.Kind == protov1.EventTaskStatus && (e.Task == nil || e.Task.ID == ""),
				e.Kind == protov1.EventLog && e.Log == nil,
				e.Kind == protov1.EventTaskInput && e.TaskInput == nil:
				t.Fatalf("event %+v from %q", e, out)
			}
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(passed, []byte("\n")), []byte("\n")) {
			serverLine(t, s, line)
		}
		if len(s.asking) != 0 {
			t.Fatalf("after %q, %d server requests are still being asked", out, len(s.asking))
		}
	})
}

// serverLine hands one line to the handler the stdio transport would: a
// method without an id is a notification, one with an id a request.
func serverLine(t *testing.T, s *session, line []byte) {
	var base struct {
		ID     *mcp.RequestId `json:"id"`
		Method string         `json:"method"`
	}
	if json.Unmarshal(line, &base) != nil || base.Method == "" {
		return
	}
	if base.ID == nil {
		var n mcp.JSONRPCNotification
		if json.Unmarshal(line, &n) == nil {
			s.onNotification(n)
		}
		return
	}
	var req transport.JSONRPCRequest
	if json.Unmarshal(line, &req) != nil {
		return
	}
	resp, err := s.onServerRequest(s.ctx, req)
	if err != nil || resp == nil {
		t.Fatalf("request %s answered %+v, %v", line, resp, err)
	}
	if resp.ID.String() != req.ID.String() || (resp.Error == nil) == (resp.Result == nil) {
		t.Fatalf("request %s answered %+v", line, resp)
	}
	if _, err := json.Marshal(resp); err != nil {
		t.Fatalf("answer to %s cannot be written: %v", line, err)
	}
}
