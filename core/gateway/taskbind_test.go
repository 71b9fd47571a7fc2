package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// taskReplicas are two gateways sharing a task key and one set of plugins,
// with tokens t0 (alice) and t1 (bob).
func taskReplicas(t *testing.T, plugins *memTasks) (a, b string) {
	t.Helper()
	key := bytes.Repeat([]byte("k"), 32)
	opts := func(o *Options) {
		o.Tokens = []string{"t0", "t1"}
		o.InputStateKey = key
		o.Tasks = &Tasks{Tool: "echo", Runner: plugins}
	}
	return startHTTP(t, newFixture(t, opts)).URL, startHTTP(t, newFixture(t, opts)).URL
}

// extTask makes a task of the tasks extension on url as token; its id.
func extTask(t *testing.T, url, token string) string {
	t.Helper()
	c := newHTTPConn(t, url+"/mcp", nil)
	c.header.Set("Authorization", "Bearer "+token)
	msgs := extRequest(c, 1, "tools/call", `"name":"echo","arguments":{"text":"x"}`, true)
	var created struct {
		TaskID string `json:"taskId"`
	}
	if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &created) != nil || created.TaskID == "" {
		t.Fatalf("create a task: %s", replyOf(msgs))
	}
	return created.TaskID
}

// taskRequest sends a task request of the extension on url as token.
func taskRequest(t *testing.T, url, token, method, id string) string {
	t.Helper()
	c := newHTTPConn(t, url+"/mcp", nil)
	c.header.Set("Authorization", "Bearer "+token)
	return replyOf(extRequest(c, 2, method, fmt.Sprintf(`"taskId":%q`, id), true))
}

// legacyTaskRequest sends a 2025-11-25 task request on a session of url.
func legacyTaskRequest(t *testing.T, url, token, method, params string) string {
	t.Helper()
	c := newHTTPConn(t, url+"/mcp", nil)
	c.header.Set("Authorization", "Bearer "+token)
	c.initialize()
	_, msgs := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":%q,"params":{%s}}`, method, params))
	return replyOf(msgs)
}

// TestTaskIDNeverReachesAReplacedTask: a plugin that restarts and gives
// its task ids again to new tasks does not let an id issued before reach
// them, on the replica that issued it or another, whether the new task
// is another principal's or the same one's, and whether its creation time
// differs or not.
func TestTaskIDNeverReachesAReplacedTask(t *testing.T) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	a, b := taskReplicas(t, plugins)

	alices := extTask(t, a, "t0")
	plugins.restart("2026-01-01T00:05:00Z")
	bobs := extTask(t, b, "t1") // the plugin's t1 again, made later
	for _, url := range []string{a, b} {
		for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			if got := taskRequest(t, url, "t0", method, alices); !strings.Contains(got, "unknown task") {
				t.Errorf("alice's id of a replaced task, %s: %s; want unknown task", method, got)
			}
		}
		for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
			if got := legacyTaskRequest(t, url, "t0", method, fmt.Sprintf(`"taskId":%q`, alices)); !strings.Contains(got, "unknown task") {
				t.Errorf("alice's id of a replaced task, 2025-11-25 %s: %s; want unknown task", method, got)
			}
		}
	}
	if got := taskRequest(t, b, "t1", "tasks/get", bobs); !strings.Contains(got, `"status":"working"`) {
		t.Errorf("bob's task after alice's attempts: %s; want it still working", got)
	}

	// Within one creation time, the replica that made both tells them apart.
	plugins.restart("2026-01-01T00:10:00Z")
	first := extTask(t, a, "t0")
	plugins.restart("2026-01-01T00:10:00Z")
	mine := extTask(t, a, "t0")
	plugins.restart("2026-01-01T00:10:00Z")
	theirs := extTask(t, a, "t1")
	for name, id := range map[string]string{"alice's own replaced task": first, "alice's task replaced by bob's": mine} {
		if got := taskRequest(t, a, "t0", "tasks/get", id); !strings.Contains(got, "unknown task") {
			t.Errorf("%s: %s; want unknown task", name, got)
		}
	}
	if got := legacyTaskRequest(t, a, "t0", "tasks/list", ""); strings.Contains(got, taskIDPrefix) {
		t.Errorf("alice lists %s; want none of the replaced tasks", got)
	}
	if got := taskRequest(t, a, "t1", "tasks/get", theirs); !strings.Contains(got, `"status":"working"`) {
		t.Errorf("bob's task: %s", got)
	}
}

// TestTasksCappedPerPrincipal: a principal holding its share of tasks in
// the plugins is refused another, on either protocol version, while
// another principal is not; a task the plugin no longer holds gives its
// place back.
func TestTasksCappedPerPrincipal(t *testing.T) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"t0", "t1"}
		o.Tasks = &Tasks{Tool: "echo", Runner: plugins}
	})
	alice, bob := Principal{Issuer: "token", Subject: "0"}, Principal{Issuer: "token", Subject: "1"}
	serve := func(who Principal, msg string) rpcResponse {
		t.Helper()
		env, err := parseEnvelope([]byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		se, err := f.srv.makeSession(who, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer se.end()
		resp, ok := f.srv.serveTask(context.Background(), se, env)
		if !ok {
			t.Fatalf("%s not served as a task request", msg)
		}
		return resp
	}
	const create = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"task":{"ttl":3600000}}}`
	const createExt = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
	var firstID string
	for i := range maxTasksPerPrincipal {
		resp := serve(alice, create)
		if resp.Error != nil {
			t.Fatalf("alice's task %d refused: %s", i+1, resp.Error.Message)
		}
		if i == 0 {
			b, _ := json.Marshal(resp.Result)
			var r struct{ Task struct{ TaskID string } }
			_ = json.Unmarshal(b, &r)
			firstID = r.Task.TaskID
		}
	}
	for name, msg := range map[string]string{"2025-11-25": create, "2026-07-28": createExt} {
		resp := serve(alice, msg)
		if resp.Error == nil || !strings.Contains(resp.Error.Message, "too many tasks of yours") || !strings.Contains(resp.Error.Message, fmt.Sprint(maxTasksPerPrincipal)) {
			t.Errorf("%s: alice's task past her share: %+v; want refused, naming the limit", name, resp)
		}
	}
	plugins.mu.Lock()
	held := len(plugins.tasks)
	plugins.mu.Unlock()
	if held != maxTasksPerPrincipal {
		t.Errorf("the plugins hold %d tasks, want alice's %d", held, maxTasksPerPrincipal)
	}
	if resp := serve(bob, create); resp.Error != nil {
		t.Fatalf("bob refused while alice holds her share: %s", resp.Error.Message)
	}

	// The plugin loses alice's first task; once she hears so, its place is hers.
	plugins.mu.Lock()
	delete(plugins.tasks, "t1")
	plugins.mu.Unlock()
	if resp := serve(alice, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":%q}}`, firstID)); resp.Error == nil || !strings.Contains(resp.Error.Message, "not found") {
		t.Fatalf("tasks/get of a task gone: %+v", resp)
	}
	if resp := serve(alice, create); resp.Error != nil {
		t.Errorf("alice refused after one of her tasks was gone: %s", resp.Error.Message)
	}
}
