package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// memTasks stands for the plugins: it runs nothing, and its tasks are
// working until cancelled.
type memTasks struct {
	mu    sync.Mutex
	tasks map[string]protov1.Task
	// stamp is the createdAt of new tasks ("" for a fixed one).
	stamp string
	// answers are what AnswerTaskInput was handed, by key.
	answers map[string]json.RawMessage
}

func (m *memTasks) AnswerTaskInput(_ context.Context, plugin, id, key string, result json.RawMessage, _ *protov1.PeerError) error {
	if _, err := m.GetTask(context.Background(), plugin, id); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.answers == nil {
		m.answers = map[string]json.RawMessage{}
	}
	m.answers[key] = result
	return nil
}

func (m *memTasks) StartTask(_ context.Context, args json.RawMessage, ttlMs *int64, _ *protov1.PeerCapabilities) (string, protov1.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	stamp := m.stamp
	if stamp == "" {
		stamp = "2026-01-01T00:00:00Z"
	}
	t := protov1.Task{ID: fmt.Sprintf("t%d", len(m.tasks)+1), Status: protov1.TaskWorking, CreatedAt: stamp, LastUpdated: stamp, TTLMs: ttlMs}
	m.tasks[t.ID] = t
	return "mem", t, nil
}

// restart loses every task, as a plugin process that ends does, and
// stamps the tasks made from now on with stamp: the ids start again.
func (m *memTasks) restart(stamp string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tasks, m.stamp = map[string]protov1.Task{}, stamp
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
	if terminal(t.Status) {
		// As mcp-stdio reports a server's -32602 for a task that ended.
		return protov1.Task{}, protov1.NotFoundf("task %q: the server says Cannot cancel task in terminal status: %s", id, t.Status)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t.Status = protov1.TaskCancelled
	m.tasks[id] = t
	return t, nil
}

// extRequest is a 2026-07-28 request of method with params (a JSON
// object's members, without braces) from a client that declares the tasks
// extension when ext is set.
func extRequest(c *httpConn, id int, method, params string, ext bool) []message {
	c.t.Helper()
	caps := `{"elicitation":{}}`
	if ext {
		caps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	}
	if params != "" {
		params += ","
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":{
		"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":%s}}}`, id, method, params, caps)
	req := c.request(http.MethodPost, body)
	req.Header.Set(headerProtocol, "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	var p struct {
		Name   string `json:"name"`
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal([]byte("{"+strings.TrimSuffix(params, ",")+"}"), &p)
	req.Header.Set("Mcp-Name", p.Name+p.TaskID)
	resp := c.do(req)
	defer resp.Body.Close()
	return readMessages(c.t, resp)
}

// replyOf is a message's result, or its error's message.
func replyOf(msgs []message) string {
	if len(msgs) != 1 {
		return fmt.Sprintf("%d messages", len(msgs))
	}
	if msgs[0].Error != nil {
		return fmt.Sprintf("error %d: %s", msgs[0].Error.Code, msgs[0].Error.Message)
	}
	return string(msgs[0].Result)
}

// TestTasksExtension makes a task of the 2026-07-28 tasks extension on one
// replica and follows it on another with the same key, with no session on
// either: its requests to the client surface as inputRequests and the
// answers reach the plugin; the other principal, a replica with another
// key, and a client that does not declare the extension find no task.
func TestTasksExtension(t *testing.T) {
	key := bytes.Repeat([]byte("k"), 32)
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	opts := func(key []byte) func(*Options) {
		return func(o *Options) {
			o.Tokens = []string{"t0", "t1"}
			o.InputStateKey = key
			o.Tasks = &Tasks{Tool: "echo", Runner: plugins}
		}
	}
	fa := newFixture(t, opts(key))
	a := startHTTP(t, fa)
	b := startHTTP(t, newFixture(t, opts(key)))
	stranger := startHTTP(t, newFixture(t, opts(nil)))
	conn := func(url, token string) *httpConn {
		c := newHTTPConn(t, url+"/mcp", nil)
		c.header.Set("Authorization", "Bearer "+token)
		return c
	}

	// Without the extension the call is an ordinary one.
	if got := replyOf(extRequest(conn(a.URL, "t0"), 1, "tools/call", `"name":"echo","arguments":{"text":"x"}`, false)); strings.Contains(got, `"taskId"`) || !strings.Contains(got, `"resultType":"complete"`) {
		t.Fatalf("call without the extension: %s", got)
	}
	msgs := extRequest(conn(a.URL, "t0"), 1, "tools/call", `"name":"echo","arguments":{"text":"x"}`, true)
	var created struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
		Status     string `json:"status"`
		TTLMs      *int64 `json:"ttlMs"`
		Task       any    `json:"task"`
	}
	if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &created) != nil || created.ResultType != "task" || created.Status != "working" || created.Task != nil {
		t.Fatalf("call with the extension: %s", replyOf(msgs))
	}
	if !strings.Contains(string(msgs[0].Result), `"ttlMs":null`) {
		t.Errorf("CreateTaskResult without ttlMs: %s", msgs[0].Result)
	}
	id := created.TaskID
	plugins.mu.Lock()
	ref := taskRef{Plugin: "mem", ID: fmt.Sprintf("t%d", len(plugins.tasks))}
	plugins.mu.Unlock()
	params := fmt.Sprintf(`"taskId":%q`, id)

	// The plugin's task asks its client something.
	fa.srv.TaskInput(ref.Plugin, protov1.TaskInput{TaskID: ref.ID, Key: "k1", Method: protov1.MethodElicit, Params: json.RawMessage(`{"message":"which?","requestedSchema":{"type":"object"}}`)})

	for _, tc := range []struct {
		name, url, token, method, params string
		ext                              bool
		want                             string
	}{
		{"get on the other replica", b.URL, "t0", "tasks/get", params, true, `"status":"working"`},
		{"get asks", a.URL, "t0", "tasks/get", params, true, `"inputRequests":{"k1":{"method":"elicitation/create"`},
		{"get says input_required", a.URL, "t0", "tasks/get", params, true, `"status":"input_required"`},
		{"get result type", a.URL, "t0", "tasks/get", params, true, `"resultType":"complete"`},
		{"update", a.URL, "t0", "tasks/update", params + `,"inputResponses":{"k1":{"action":"accept","content":{"pick":"a"}},"k9":{"action":"decline"}}`, true, `"resultType":"complete"}`},
		{"get after the answer", a.URL, "t0", "tasks/get", params, true, `"status":"working"`},
		{"update without responses", a.URL, "t0", "tasks/update", params, true, `error -32602`},
		{"no tasks/result", a.URL, "t0", "tasks/result", params, true, `error -32601`},
		{"no tasks/list", a.URL, "t0", "tasks/list", "", true, `error -32601`},
		{"undeclared", a.URL, "t0", "tasks/get", params, false, `error -32021`},
		{"another principal", b.URL, "t1", "tasks/get", params, true, `unknown task`},
		{"another key", stranger.URL, "t0", "tasks/get", params, true, `unknown task`},
		{"no id", a.URL, "t0", "tasks/get", "", true, `error -32602`},
		// The extension: a server ignores the 2025-11-25 task param.
		{"the 2025-11-25 task param", a.URL, "t0", "tools/call", `"name":"echo","arguments":{"text":"x"},"task":{}`, true, `"resultType":"task"`},
		{"the 2025-11-25 task param undeclared", a.URL, "t0", "tools/call", `"name":"echo","arguments":{"text":"x"},"task":{"ttl":1000}`, false, `"resultType":"complete"`},
		{"cancel", b.URL, "t0", "tasks/cancel", params, true, `"resultType":"complete"}`},
		{"get after cancel", a.URL, "t0", "tasks/get", params, true, `"status":"cancelled"`},
		{"cancel once ended", a.URL, "t0", "tasks/cancel", params, true, `"resultType":"complete"}`},
	} {
		if got := replyOf(extRequest(conn(tc.url, tc.token), 2, tc.method, tc.params, tc.ext)); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %s; want %s", tc.name, got, tc.want)
		}
	}
	plugins.mu.Lock()
	defer plugins.mu.Unlock()
	if got := string(plugins.answers["k1"]); got != `{"action":"accept","content":{"pick":"a"}}` {
		t.Errorf("answer handed to the plugin: %q", got)
	}
	if _, ok := plugins.answers["k9"]; ok {
		t.Error("an answer to a key never asked reached the plugin")
	}
}

// TestTasksExtensionListen follows a task on a subscriptions/listen of its
// id: the ids the caller does not own are not agreed to, the task's state
// comes at once and again when it changes, and the stream ends with the
// task; a client that does not declare the extension is refused.
func TestTasksExtensionListen(t *testing.T) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"t0", "t1"}
		o.Tasks = &Tasks{Tool: "echo", Runner: plugins}
	})
	srv := startHTTP(t, f)
	conn := func(token string) *httpConn {
		c := newHTTPConn(t, srv.URL+"/mcp", nil)
		c.header.Set("Authorization", "Bearer "+token)
		return c
	}
	var created struct {
		TaskID string `json:"taskId"`
	}
	msgs := extRequest(conn("t0"), 1, "tools/call", `"name":"echo","arguments":{"text":"x"}`, true)
	if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &created) != nil || created.TaskID == "" {
		t.Fatalf("create: %s", replyOf(msgs))
	}
	theirs := extRequest(conn("t1"), 1, "tools/call", `"name":"echo","arguments":{"text":"y"}`, true)
	var other struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(theirs[0].Result, &other)

	listen := fmt.Sprintf(`"notifications":{"taskIds":[%q,%q,"nonsense"]}`, created.TaskID, other.TaskID)
	if got := replyOf(extRequest(conn("t0"), 2, "subscriptions/listen", listen, false)); !strings.Contains(got, "error -32021") {
		t.Errorf("a task listen without the extension: %s", got)
	}
	done := make(chan []message, 1)
	go func() { done <- extRequest(conn("t0"), 3, "subscriptions/listen", listen, true) }()
	time.Sleep(300 * time.Millisecond)
	f.srv.TaskInput("mem", protov1.TaskInput{TaskID: "t1", Key: "k", Method: protov1.MethodElicit, Params: json.RawMessage(`{"message":"?"}`)})
	time.Sleep(300 * time.Millisecond)
	cancelled, err := plugins.CancelTask(context.Background(), "mem", "t1")
	if err != nil {
		t.Fatal(err)
	}
	f.srv.TaskStatus("mem", cancelled)
	var got []message
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the listen did not end with its task")
	}
	var seen []string
	for _, m := range got {
		switch {
		case m.Method == "notifications/subscriptions/acknowledged":
			if !strings.Contains(string(m.Params), `"taskIds":[`+fmt.Sprintf("%q", created.TaskID)+`]`) {
				t.Errorf("acknowledged %s; want only the caller's task", m.Params)
			}
			seen = append(seen, "ack")
		case m.Method == "notifications/tasks":
			var p struct {
				TaskID string `json:"taskId"`
				Status string `json:"status"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if p.TaskID != created.TaskID || !strings.Contains(string(m.Params), `"io.modelcontextprotocol/subscriptionId":3`) {
				t.Errorf("notification %s", m.Params)
			}
			seen = append(seen, p.Status)
		case m.Result != nil:
			seen = append(seen, "end")
		}
	}
	if want := []string{"ack", "working", "input_required", "cancelled", "end"}; !slices.Equal(seen, want) {
		t.Errorf("listen stream %v; want %v", seen, want)
	}
}

// FuzzTaskExtension: whatever params a client sends the extension's
// methods, the gateway answers with a result or an error, never panics, and
// finds no task in an id it did not issue.
func FuzzTaskExtension(f *testing.F) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	fx, err := buildFixture(func(o *Options) { o.Tasks = &Tasks{Tool: "echo", Runner: plugins} })
	if err != nil {
		f.Fatal(err)
	}
	defer fx.srv.Close()
	issued := fx.srv.encodeTaskID(Principal{}, taskHandle{taskRef: taskRef{Plugin: "mem", ID: "t1"}, Created: "c", Nonce: "n"})
	plugins.tasks["t1"] = protov1.Task{ID: "t1", Status: protov1.TaskWorking, CreatedAt: "c"}
	const ext = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
	for _, seed := range []struct{ method, params string }{
		{"tasks/get", `"taskId":"` + issued + `"`},
		{"tasks/update", `"taskId":"` + issued + `","inputResponses":{"k":{"action":"accept"}}`},
		{"tasks/update", `"taskId":"` + issued + `","inputResponses":[1]`},
		{"tasks/cancel", `"taskId":7`},
		{"tools/call", `"name":"echo","arguments":{"text":"x"}`},
		{"subscriptions/listen", `"notifications":{"taskIds":["` + issued + `"]}`},
	} {
		f.Add(seed.method, seed.params)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,%s}}`, method, params, ext)
		env, err := parseEnvelope([]byte(msg))
		if err != nil {
			return
		}
		se, err := fx.srv.makeSession(Principal{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer se.end()
		resp, ok := fx.srv.serveTaskExt(context.Background(), se, env)
		if !ok {
			return
		}
		if (resp.Result == nil) == (resp.Error == nil) {
			t.Fatalf("%s {%s}: want exactly one of result and error, got %+v", method, params, resp)
		}
		var p struct {
			TaskID any `json:"taskId"`
		}
		_ = json.Unmarshal(env.Params, &p)
		if id, _ := p.TaskID.(string); id != issued && resp.Error == nil && method != "tools/call" {
			t.Fatalf("%s of task %v not issued: %+v", method, p.TaskID, resp.Result)
		}
	})
}
