package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// memTasks stands for the plugins: it runs nothing, and its tasks are
// working until cancelled.
type memTasks struct {
	mu    sync.Mutex
	tasks map[string]protov1.Task
}

func (m *memTasks) StartTask(_ context.Context, args json.RawMessage, ttlMs *int64) (string, protov1.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := protov1.Task{ID: fmt.Sprintf("t%d", len(m.tasks)+1), Status: protov1.TaskWorking, CreatedAt: "2026-01-01T00:00:00Z", LastUpdated: "2026-01-01T00:00:00Z", TTLMs: ttlMs}
	m.tasks[t.ID] = t
	return "mem", t, nil
}

func (m *memTasks) GetTask(_ context.Context, plugin, id string) (protov1.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok || plugin != "mem" {
		return protov1.Task{}, protov1.NotFoundf("task %q", id)
	}
	return t, nil
}

func (m *memTasks) TaskResult(ctx context.Context, plugin, id string) (*protov1.Result, error) {
	if _, err := m.GetTask(ctx, plugin, id); err != nil {
		return nil, err
	}
	return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: "done " + id}}}, nil
}

func (m *memTasks) CancelTask(ctx context.Context, plugin, id string) (protov1.Task, error) {
	t, err := m.GetTask(ctx, plugin, id)
	if err != nil {
		return t, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t.Status = protov1.TaskCancelled
	m.tasks[id] = t
	return t, nil
}

// modernRequest is a 2026-07-28 request of method with params (a JSON
// object's members, without braces).
func modernRequest(c *httpConn, id int, method, params string) []message {
	c.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s%s"_meta":{
		"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, id, method, params, map[bool]string{true: ",", false: ""}[params != ""])
	req := c.request(http.MethodPost, body)
	req.Header.Set(headerProtocol, "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	resp := c.do(req)
	defer resp.Body.Close()
	return readMessages(c.t, resp)
}

// TestTasksRouteStatelessly makes a task on one replica over 2026-07-28 and
// follows it on another with the same key, with no session on either; the
// other principal, and a replica with another key, find no such task.
func TestTasksRouteStatelessly(t *testing.T) {
	key := bytes.Repeat([]byte("k"), 32)
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	opts := func(key []byte) func(*Options) {
		return func(o *Options) {
			o.Tokens = []string{"t0", "t1"}
			o.InputStateKey = key
			o.Tasks = &Tasks{Tool: "echo", Runner: plugins}
		}
	}
	a := startHTTP(t, newFixture(t, opts(key)))
	b := startHTTP(t, newFixture(t, opts(key)))
	stranger := startHTTP(t, newFixture(t, opts(nil)))
	conn := func(url, token string) *httpConn {
		c := newHTTPConn(t, url+"/mcp", nil)
		c.header.Set("Authorization", "Bearer "+token)
		return c
	}

	status, msgs := modernCall(conn(a.URL, "t0"), 1, "echo", `{"text":"x"}`, `,"task":{"ttl":5000}`)
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
			TTL    int64  `json:"ttl"`
		} `json:"task"`
	}
	if status != http.StatusOK || len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &created) != nil || created.Task.Status != "working" || created.Task.TTL != 5000 {
		t.Fatalf("task-augmented call: %d %+v", status, msgs)
	}
	if !strings.Contains(string(msgs[0].Result), `"resultType":"complete"`) {
		t.Errorf("a 2026-07-28 CreateTaskResult without resultType: %s", msgs[0].Result)
	}
	id := created.Task.TaskID
	params := fmt.Sprintf(`"taskId":%q`, id)

	for _, tc := range []struct {
		name, url, token, method, want string
	}{
		{"get on the other replica", b.URL, "t0", "tasks/get", `"status":"working"`},
		{"result", b.URL, "t0", "tasks/result", `"done t1"`},
		{"result type", b.URL, "t0", "tasks/result", `"resultType":"complete"`},
		{"cancel", a.URL, "t0", "tasks/cancel", `"status":"cancelled"`},
		{"another principal", b.URL, "t1", "tasks/get", `unknown task`},
		{"another key", stranger.URL, "t0", "tasks/get", `unknown task`},
	} {
		msgs := modernRequest(conn(tc.url, tc.token), 2, tc.method, params)
		if len(msgs) != 1 {
			t.Fatalf("%s: %+v", tc.name, msgs)
		}
		got := string(msgs[0].Result)
		if msgs[0].Error != nil {
			got = msgs[0].Error.Message
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s; want %s", tc.name, got, tc.want)
		}
	}

	// tasks/list answers from the replica that made the task, per principal.
	for _, tc := range []struct {
		url, token string
		want       bool
	}{{a.URL, "t0", true}, {a.URL, "t1", false}, {b.URL, "t0", false}} {
		msgs := modernRequest(conn(tc.url, tc.token), 3, "tasks/list", "")
		if len(msgs) != 1 || strings.Contains(string(msgs[0].Result), id) != tc.want {
			t.Errorf("tasks/list on %s as %s: %+v; want listed %v", tc.url, tc.token, msgs, tc.want)
		}
	}
	for _, params := range []string{"", `"taskId":"elsewhere"`} {
		msgs := modernRequest(conn(a.URL, "t0"), 4, "tasks/get", params)
		if len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != codeInvalidParams {
			t.Errorf("tasks/get {%s}: %+v; want invalid params", params, msgs)
		}
	}
}
