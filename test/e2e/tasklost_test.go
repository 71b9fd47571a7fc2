package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestTasksLostWithTheirPlugin fills a principal's share of tasks in
// server-everything through its mcp-stdio plugin, then kills the plugin
// for real. The gateway fails every task the process took with it at work,
// naming the plugin and that it restarted: on tasks/get of 2025-11-25 and
// of the 2026-07-28 extension, tasks/list, tasks/result and tasks/cancel,
// and in the status notice of the session that created one. A task that
// had completed, or been cancelled, before stays so, as MCP keeps a
// terminal state; the completed one's result, gone with the process, is an
// error saying so. The server keeps its tasks for 5 minutes, longer than
// the test may run, so nothing but their plugin's restart frees their
// places: the principal may then create its whole share again.
func TestTasksLostWithTheirPlugin(t *testing.T) {
	g := startGateway(t, setup{
		Plugins: everythingPlugin(t, "everything", true),
		Listen:  `tokens = ["alice-secret", "bob-secret"]`,
	})
	// Alice's tasks at work ask her to clarify their topic, and wait: she
	// declares elicitation but never answers, so they are at work when
	// their process is killed, however long the test takes.
	alice := startClientEnv(t, []string{"MCP_TOKEN=alice-secret", "MCP_ELICITATION=1"}, "http", g.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	waitTool(ctx, t, alice, researchTool)
	// A principal's share when several can connect: a tenth of the 10,000
	// tasks a gateway keeps.
	const share = 1000

	// One task of alice's session, which hears of its tasks' status.
	raw, err := alice.send("create_task", "call_tool", map[string]any{
		"name": researchTool, "arguments": map[string]any{"topic": "session", "ambiguous": true},
	}, 30*time.Second).wait(ctx)
	if err != nil {
		t.Fatalf("create a task on alice's session: %v", err)
	}
	var created struct {
		Task taskInfo `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.Task.TaskID == "" {
		t.Fatalf("CreateTaskResult: %v: %s", err, raw)
	}
	// One task run to its end, its result read, and one cancelled.
	completed := createTask(ctx, t, alice, "completed")
	if _, err := alice.send("task_result", completed, nil, 30*time.Second).wait(ctx); err != nil {
		t.Fatalf("tasks/result of a task run to its end: %v", err)
	}
	if got, err := taskOp(ctx, alice, "get_task", completed); err != nil || got.Status != "completed" {
		t.Fatalf("tasks/get of a task run to its end: %+v, %v", got, err)
	}
	cancelled := createTask(ctx, t, alice, "cancelled")
	if got, err := taskOp(ctx, alice, "cancel_task", cancelled); err != nil || got.Status != "cancelled" {
		t.Fatalf("tasks/cancel: %+v, %v", got, err)
	}
	ids := createExtTasks(ctx, t, g.URL, "alice-secret", share-3)
	if got := extCall(ctx, t, g.URL, "alice-secret", "tools/call", callResearch("one too many")); !strings.Contains(got.errorText(), "too many tasks of yours") {
		t.Fatalf("alice's task past her share: %s; want it refused", got.raw)
	}

	before := findPlugin(ctx, t, g, alice, "everything")
	kill(t, before.Plugin, syscall.SIGKILL)
	alice.waitPlugin(ctx, "everything", 30*time.Second, func(st pluginStatus) bool { return running(st) && st.Pid != before.Plugin.Pid })

	const why = `plugin "everything" restarted (plugin process`
	requireStatusNotice(t, alice, created.Task.TaskID, "failed")
	got, err := taskOp(ctx, alice, "get_task", ids[0])
	if err != nil || got.Status != "failed" || !strings.Contains(got.StatusMessage, why) || !strings.Contains(got.StatusMessage, "ended with its process") {
		t.Fatalf("tasks/get of a task of the killed process: %+v, %v; want failed, saying %s…", got, err, why)
	}
	ext := extCall(ctx, t, g.URL, "alice-secret", "tasks/get", map[string]any{"taskId": ids[1]})
	var detailed struct {
		Status string `json:"status"`
		Error  struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(ext.Result, &detailed); err != nil || detailed.Status != "failed" || !strings.Contains(detailed.Error.Message, why) {
		t.Fatalf("2026-07-28 tasks/get of a task of the killed process: %s; want failed with the reason as its error", ext.raw)
	}
	res, err := alice.send("task_result", ids[2], nil, 20*time.Second).wait(ctx)
	if err != nil || !strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), `plugin \"everything\" restarted`) {
		t.Fatalf("tasks/result of a task of the killed process: %s, %v; want an isError result with the reason", res, err)
	}
	_, err = taskOp(ctx, alice, "cancel_task", ids[3])
	requireTaskError(t, err, "has already ended")
	listed := listTasks(ctx, t, alice)
	if listed[ids[4]].Status != "failed" || listed[created.Task.TaskID].Status != "failed" {
		t.Fatalf("tasks/list after the kill: %v and %v; want both failed", listed[ids[4]], listed[created.Task.TaskID])
	}
	if listed[completed].Status != "completed" || listed[cancelled].Status != "cancelled" {
		t.Fatalf("tasks/list after the kill: %v and %v; want them as they ended", listed[completed], listed[cancelled])
	}

	// The tasks that had ended stay as they ended.
	if got, err := taskOp(ctx, alice, "get_task", completed); err != nil || got.Status != "completed" {
		t.Fatalf("tasks/get of the task completed before the kill: %+v, %v; want completed", got, err)
	}
	if got, err := taskOp(ctx, alice, "get_task", cancelled); err != nil || got.Status != "cancelled" {
		t.Fatalf("tasks/get of the task cancelled before the kill: %+v, %v; want cancelled", got, err)
	}
	const lost = `had completed, but its result was lost with the plugin's process: ` + why
	var re *rpcError
	if _, err := alice.send("task_result", completed, nil, 20*time.Second).wait(ctx); !errors.As(err, &re) || re.Code != -32603 || !strings.Contains(re.Message, lost) {
		t.Fatalf("tasks/result of the task completed before the kill: %v; want -32603 saying %s…", err, lost)
	}
	if ext := extCall(ctx, t, g.URL, "alice-secret", "tasks/get", map[string]any{"taskId": completed}); ext.Error == nil || ext.Error.Code != -32603 || !strings.Contains(ext.Error.Message, lost) {
		t.Fatalf("2026-07-28 tasks/get of the task completed before the kill: %s; want -32603 saying %s…", ext.raw, lost)
	}

	// Every place is alice's again, at once.
	createExtTasks(ctx, t, g.URL, "alice-secret", share)
	g.requireAlive()
}

// createTask creates a research task on c's session and returns its id.
func createTask(ctx context.Context, t *testing.T, c *mcpClient, topic string) string {
	t.Helper()
	raw, err := c.send("create_task", "call_tool", map[string]any{
		"name": researchTool, "arguments": map[string]any{"topic": topic},
	}, 30*time.Second).wait(ctx)
	var created struct {
		Task taskInfo `json:"task"`
	}
	if err != nil || json.Unmarshal(raw, &created) != nil || created.Task.TaskID == "" {
		t.Fatalf("create a task: %v: %s", err, raw)
	}
	return created.Task.TaskID
}

// callResearch is the params of a call_tool of the research tool, one
// that asks its client to clarify the topic.
func callResearch(topic string) map[string]any {
	return map[string]any{"name": "call_tool", "arguments": map[string]any{"name": researchTool, "arguments": map[string]any{"topic": topic, "ambiguous": true}}}
}

// createExtTasks creates n research tasks as the principal of token over
// 2026-07-28, a few at a time, and returns their ids. Its client declares
// elicitation, and no one answers: the tasks wait for it.
func createExtTasks(ctx context.Context, t *testing.T, url, token string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				a := extCall(ctx, t, url, token, "tools/call", callResearch(fmt.Sprint("topic ", i)))
				var task struct {
					ResultType string `json:"resultType"`
					TaskID     string `json:"taskId"`
				}
				if err := json.Unmarshal(a.Result, &task); err != nil || task.ResultType != "task" {
					t.Errorf("task %d of %d: %s", i+1, n, a.raw)
					continue
				}
				ids[i] = task.TaskID
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return ids
}

// extAnswer is the answer to one 2026-07-28 request.
type extAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
	raw    string
}

func (a extAnswer) errorText() string {
	if a.Error == nil {
		return ""
	}
	return a.Error.Message
}

// extCall sends one 2026-07-28 request that declares the tasks extension
// and elicitation, as its own HTTP POST, and returns its answer, read from
// the JSON body or the last message of its event stream.
func extCall(ctx context.Context, t *testing.T, url, token, method string, params map[string]any) extAnswer {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "toolgate-e2e-tasklost", "version": "1.0.0"},
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Error(err)
		return extAnswer{}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		t.Error(err)
		return extAnswer{}
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Authorization": "Bearer " + token, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method} {
		req.Header.Set(k, v)
	}
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s: %v", method, err)
		return extAnswer{}
	}
	defer resp.Body.Close()
	var last string
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			line = data
		}
		if strings.Contains(line, `"id"`) {
			last = line
		}
	}
	a := extAnswer{raw: last}
	if err := json.Unmarshal([]byte(last), &a); err != nil {
		t.Errorf("%s: HTTP %d, answer %q: %v", method, resp.StatusCode, last, err)
	}
	a.raw = last
	return a
}

// listTasks is tasks/list of c, by task id.
func listTasks(ctx context.Context, t *testing.T, c *mcpClient) map[string]taskInfo {
	t.Helper()
	raw, err := c.send("list_tasks", "", nil, 20*time.Second).wait(ctx)
	if err != nil {
		t.Fatalf("tasks/list: %v", err)
	}
	var out struct {
		Tasks []taskInfo `json:"tasks"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("tasks/list: %v: %s", err, raw)
	}
	tasks := map[string]taskInfo{}
	for _, tk := range out.Tasks {
		tasks[tk.TaskID] = tk
	}
	return tasks
}
