package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// taskInfo is an MCP task as the SDK hands it over.
type taskInfo struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
}

const researchTool = "x_everything_simulate-research-query"

// TestTasksThroughCallTool runs server-everything's task tool through
// call_tool as an MCP task, with the official TypeScript SDK's experimental
// tasks client over HTTP: the task is created, polled to its end and its
// result fetched; another task is listed and cancelled; a second principal
// cannot see either, and unknown ids are refused by name, as are tasks of
// an SDK plugin that runs none.
func TestTasksThroughCallTool(t *testing.T) {
	g := startGateway(t, setup{
		Plugins: everythingPlugin(t, "everything", true) + pathPlugin("hello", bins.hello, true),
		Listen:  `tokens = ["alice-secret", "bob-secret"]`,
	})
	alice := connectHTTPAs(t, g.URL, "alice-secret")
	bob := connectHTTPAs(t, g.URL, "bob-secret")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	waitTool(ctx, t, alice, researchTool)
	waitTool(ctx, t, alice, "x_hello_greet")

	// The SDK's own flow: create, poll tasks/get until terminal, tasks/result.
	first, last, raw := callTask(ctx, t, alice, map[string]any{"topic": "gateways"})
	if first.Type != "taskCreated" || first.Task == nil || !strings.HasPrefix(first.Task.TaskID, "tg2.") {
		t.Fatalf("first message is not the created task with a gateway id: %s", raw)
	}
	if last.Type != "result" || last.Result == nil || last.Result.IsError || !strings.Contains(last.Result.text(), "gateways") {
		t.Fatalf("last message is not the research report: %s", raw)
	}
	done := first.Task.TaskID

	got, err := taskOp(ctx, alice, "get_task", done)
	if err != nil || got.Status != "completed" {
		t.Fatalf("tasks/get of the finished task: %+v, %v", got, err)
	}

	// The server's status notices reached the session that made the task,
	// under the gateway's id, and no other.
	requireStatusNotice(t, alice, done, "completed")
	bob.mu.Lock()
	if len(bob.notices) != 0 {
		t.Errorf("bob heard of alice's tasks: %s", bob.notices)
	}
	bob.mu.Unlock()

	// A second task, cancelled while it runs.
	raw, err = alice.send("create_task", "call_tool", map[string]any{
		"name": researchTool, "arguments": map[string]any{"topic": "cancellation"},
	}, 30*time.Second).wait(ctx)
	if err != nil {
		t.Fatalf("create a task: %v", err)
	}
	var created struct {
		Task taskInfo `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.Task.Status != "working" {
		t.Fatalf("CreateTaskResult: %v: %s", err, raw)
	}
	running := created.Task.TaskID

	// Another principal sees neither task: both ids are unknown to bob.
	for _, id := range []string{done, running} {
		for _, op := range []string{"get_task", "task_result", "cancel_task"} {
			_, err := taskOp(ctx, bob, op, id)
			requireTaskError(t, err, "unknown task")
		}
	}
	if ids := listTaskIDs(ctx, t, bob); len(ids) != 0 {
		t.Fatalf("bob lists alice's tasks: %v", ids)
	}
	ids := listTaskIDs(ctx, t, alice)
	if !ids[done] || !ids[running] {
		t.Fatalf("alice's tasks/list lacks her tasks %q and %q: %v", done, running, ids)
	}

	got, err = taskOp(ctx, alice, "cancel_task", running)
	if err != nil || got.Status != "cancelled" {
		t.Fatalf("tasks/cancel: %+v, %v", got, err)
	}
	if got, err = taskOp(ctx, alice, "get_task", running); err != nil || got.Status != "cancelled" {
		t.Fatalf("tasks/get after cancel: %+v, %v", got, err)
	}

	// Ids the gateway never issued, and one altered, are refused by name.
	altered := done[:len(done)-2] + "AA"
	for _, id := range []string{"no-such-task", "tg2.ZXZlcnl0aGluZw.eA.MjAyNg.bm9uY2U.AAAA", altered} {
		_, err := taskOp(ctx, alice, "get_task", id)
		requireTaskError(t, err, "unknown task \""+id+"\"")
	}
	// A tool whose plugin does not run tasks, a core tool and an unknown tool
	// are refused with what is at fault.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"name": "x_hello_greet", "arguments": map[string]any{"name": "Ada"}}, `plugin "hello" does not run tasks`},
		{map[string]any{"name": "core_plugin_list"}, "core_plugin_list is a core tool and does not run as a task"},
		{map[string]any{"name": "x_nowhere_nothing"}, `unknown tool "x_nowhere_nothing"`},
		{map[string]any{"name": researchTool, "arguments": map[string]any{}}, "topic"},
	} {
		_, err := alice.send("create_task", "call_tool", c.args, 20*time.Second).wait(ctx)
		requireTaskError(t, err, c.want)
	}
	g.requireAlive()
}

func taskOp(ctx context.Context, c *mcpClient, op, id string) (taskInfo, error) {
	raw, err := c.send(op, id, nil, 20*time.Second).wait(ctx)
	if err != nil {
		return taskInfo{}, err
	}
	var t taskInfo
	err = json.Unmarshal(raw, &t)
	return t, err
}

func listTaskIDs(ctx context.Context, t *testing.T, c *mcpClient) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for id := range listTasks(ctx, t, c) {
		ids[id] = true
	}
	return ids
}

func requireTaskError(t *testing.T, err error, want string) {
	t.Helper()
	var re *rpcError
	if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Message, want) {
		t.Fatalf("want error -32602 containing %q, got %v", want, err)
	}
}

// requireStatusNotice waits for c to have heard that task id reached status.
func requireStatusNotice(t *testing.T, c *mcpClient, id, status string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		heard := append([]json.RawMessage(nil), c.notices...)
		c.mu.Unlock()
		for _, raw := range heard {
			var n struct {
				Method string   `json:"method"`
				Params taskInfo `json:"params"`
			}
			if json.Unmarshal(raw, &n) == nil && n.Method == "notifications/tasks/status" && n.Params.TaskID == id && n.Params.Status == status {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no notifications/tasks/status of %q with status %q; heard %s", id, status, heard)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitTool waits until the gateway knows tool: server-everything registers
// its task tool only after initialize, and the catalog learns it then.
func waitTool(ctx context.Context, t *testing.T, c *mcpClient, tool string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := c.call(ctx, "describe_tool", map[string]any{"name": tool})
		if err == nil && !r.IsError {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway did not learn %s in 30s: %v %+v", tool, err, r)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// taskMessage is one message of the TypeScript SDK's task stream.
type taskMessage struct {
	Type   string    `json:"type"`
	Task   *taskInfo `json:"task"`
	Result *result   `json:"result"`
	Error  *rpcError `json:"error"`
}

// callTask runs the research tool as a task through c with the SDK's own flow
// (create, poll, result) and returns the stream's first and last messages and
// the raw stream for failure reports.
func callTask(ctx context.Context, t *testing.T, c *mcpClient, args map[string]any) (first, last taskMessage, raw json.RawMessage) {
	t.Helper()
	raw, err := c.send("call_task", "call_tool", map[string]any{"name": researchTool, "arguments": args}, 60*time.Second).wait(ctx)
	if err != nil {
		t.Fatalf("task-augmented call_tool: %v", err)
	}
	var messages []taskMessage
	if err := json.Unmarshal(raw, &messages); err != nil || len(messages) < 2 {
		t.Fatalf("stream messages: %v: %s", err, raw)
	}
	return messages[0], messages[len(messages)-1], raw
}
