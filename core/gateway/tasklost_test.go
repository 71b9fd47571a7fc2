package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// TestPluginEndedSettlesItsTasks: when the plugin's process ends, the
// tasks it kept are failed at once, their places in the share are free,
// and their ids never reach the new process, which numbers its tasks from
// the start again: tasks/get, tasks/result and tasks/cancel on either
// protocol answer for the lost task without touching the new one that has
// its plugin id. Tasks of another plugin are not touched.
func TestPluginEndedSettlesItsTasks(t *testing.T) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"t0", "t1"}
		o.Tasks = &Tasks{Tool: "echo", Runner: plugins}
	})
	alice := Principal{Issuer: "token", Subject: "0"}
	serve := taskRequests(t, f.srv, alice)
	var ids []string
	for i := range maxTasksPerPrincipal {
		ids = append(ids, createTask(t, serve, i))
	}
	if resp := serve(createMsg); resp.Error == nil || !strings.Contains(resp.Error.Message, "too many tasks of yours") {
		t.Fatalf("alice past her share: %s", respText(resp))
	}

	f.srv.PluginEnded("other", "restarted (plugin process exit status 1)")
	if resp := serve(createMsg); resp.Error == nil {
		t.Fatal("another plugin's restart freed alice's places")
	}
	// The plugin's process ends; its new one makes t1 again, the same
	// plugin id as alice's first task, with the same createdAt.
	plugins.restart("")
	f.srv.PluginEnded("mem", "restarted (plugin process signal: killed; next try in 0s)")
	const why = `plugin "mem" restarted (plugin process signal: killed; next try in 0s), and this task ended with its process; run the call again`
	if resp := serve(createMsg); resp.Error != nil {
		t.Fatalf("alice refused once her plugin's restart took her tasks: %s", respText(resp))
	}

	get := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":%q}}`, ids[0])
	if got := respText(serve(get)); !strings.Contains(got, `"status":"failed"`) || !strings.Contains(got, fmt.Sprintf("%q", why)) {
		t.Errorf("tasks/get of a lost task: %s; want failed, saying %s", got, why)
	}
	result := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":%q}}`, ids[0])
	if got := respText(serve(result)); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `restarted`) || strings.Contains(got, "done t1") {
		t.Errorf("tasks/result of a lost task: %s; want the failure, not the new t1's result", got)
	}
	cancel := fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":%q}}`, ids[0])
	if resp := serve(cancel); resp.Error == nil || resp.Error.Code != codeInvalidParams || !strings.Contains(resp.Error.Message, "has already ended: "+why) {
		t.Errorf("tasks/cancel of a lost task: %s; want -32602 saying it ended and why", respText(resp))
	}
	extCancel := extTaskMsg("tasks/cancel", ids[0])
	if resp := serve(extCancel); resp.Error != nil {
		t.Errorf("2026-07-28 tasks/cancel of a lost task: %s; want it acknowledged, as for any ended task", respText(resp))
	}
	if now, _ := plugins.GetTask(context.Background(), "mem", "t1"); now.Status != protov1.TaskWorking {
		t.Errorf("the new process's t1 is %s after requests about the lost t1; want it untouched", now.Status)
	}
	if got := respText(serve(extTaskMsg("tasks/get", ids[0]))); !strings.Contains(got, `"status":"failed"`) || !strings.Contains(got, `"error":{"code":-32603,"message":`+fmt.Sprintf("%q", why)) {
		t.Errorf("2026-07-28 tasks/get of a lost task: %s; want failed with the reason as its error", got)
	}
	list := respText(serve(`{"jsonrpc":"2.0","id":6,"method":"tasks/list","params":{}}`))
	if strings.Count(list, `"status":"failed"`) != maxTasksPerPrincipal || strings.Count(list, `"status":"working"`) != 1 {
		t.Errorf("tasks/list after the restart lists %d failed and %d working; want %d lost and the new one",
			strings.Count(list, `"status":"failed"`), strings.Count(list, `"status":"working"`), maxTasksPerPrincipal)
	}
}

// taskRequests returns a function that serves one task request of who's,
// each on a session of its own.
func taskRequests(t *testing.T, srv *Server, who Principal) func(msg string) rpcResponse {
	return func(msg string) rpcResponse {
		t.Helper()
		env, err := parseEnvelope([]byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		se, err := srv.makeSession(who, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer se.end()
		resp, ok := srv.serveTask(context.Background(), se, env)
		if !ok {
			t.Fatalf("%s not served as a task request", msg)
		}
		return resp
	}
}

// createMsg makes a task of echo, kept for an hour.
const createMsg = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"task":{"ttl":3600000}}}`

// createTask makes task n through serve and returns its id.
func createTask(t *testing.T, serve func(string) rpcResponse, n int) string {
	t.Helper()
	resp := serve(createMsg)
	var r struct{ Task struct{ TaskID string } }
	if b, _ := json.Marshal(resp.Result); resp.Error != nil || json.Unmarshal(b, &r) != nil || r.Task.TaskID == "" {
		t.Fatalf("task %d: %s", n+1, respText(resp))
	}
	return r.Task.TaskID
}

// taskMsg is a 2025-11-25 request of method about the task id names.
func taskMsg(method, id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":%q,"params":{"taskId":%q}}`, method, id)
}

// extTaskMsg is a 2026-07-28 request of method about the task id names,
// from a client of the tasks extension.
func extTaskMsg(method, id string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":%q,"params":{"taskId":%q,"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, method, id)
}

func respText(resp rpcResponse) string {
	b, _ := json.Marshal(resp)
	return string(b)
}

// end moves the plugin's task id to status, saying msg, and returns it.
func (m *memTasks) end(id, status, msg string) protov1.Task {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tasks[id]
	t.Status, t.StatusMessage, t.LastUpdated = status, msg, "2026-01-01T00:00:09Z"
	m.tasks[id] = t
	return t
}

// TestPluginEndedKeepsEndedTasks: a task that had completed, failed or
// been cancelled before its plugin's process ended stays as it was, as MCP
// keeps a terminal state, whether the gateway learnt it from a status
// notice, a tasks/get or a tasks/cancel; the result of the completed one,
// lost with the process, is an error saying so, on either protocol, and
// never the result of the new process's task under its id. Only the task
// still at work is failed, and every place in the share is free.
func TestPluginEndedKeepsEndedTasks(t *testing.T) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"t0", "t1"}
		o.Tasks = &Tasks{Tool: "echo", Runner: plugins}
	})
	alice := Principal{Issuer: "token", Subject: "0"}
	serve := taskRequests(t, f.srv, alice)
	working, completed, cancelled, failed := createTask(t, serve, 0), createTask(t, serve, 1), createTask(t, serve, 2), createTask(t, serve, 3)

	// The plugin tells of t2's end; t3 is cancelled through the gateway;
	// t4's failure is learnt from tasks/get.
	f.srv.TaskStatus("mem", plugins.end("t2", protov1.TaskCompleted, "report ready"))
	if resp := serve(taskMsg("tasks/cancel", cancelled)); resp.Error != nil {
		t.Fatalf("tasks/cancel: %s", respText(resp))
	}
	plugins.end("t4", protov1.TaskFailed, "the backend said no")
	if got := respText(serve(taskMsg("tasks/get", failed))); !strings.Contains(got, `"status":"failed"`) {
		t.Fatalf("tasks/get of the failed task: %s", got)
	}

	plugins.restart("")
	f.srv.PluginEnded("mem", "restarted (plugin process exit status 1)")
	const how = `plugin "mem" restarted (plugin process exit status 1)`
	// The new process makes t1 and t2 again, with the same createdAt, and
	// its t1 asks its client something.
	renewed := createTask(t, serve, 4)
	createTask(t, serve, 5)
	f.srv.TaskInput("mem", protov1.TaskInput{TaskID: "t1", Key: "k", Method: protov1.MethodElicit, Params: json.RawMessage(`{"message":"?"}`)})
	if got := f.srv.taskIndex.held.of(alice); got != 2 {
		t.Errorf("alice holds %d places after her plugin's restart and two new tasks; want 2", got)
	}

	for _, c := range []struct{ id, want, not string }{
		{completed, `"status":"completed","statusMessage":"report ready"`, "ended with its process"},
		{cancelled, `"status":"cancelled"`, "ended with its process"},
		{failed, `"status":"failed","statusMessage":"the backend said no"`, "ended with its process"},
		{working, `"status":"failed","statusMessage":` + fmt.Sprintf("%q", how+", and this task ended with its process; run the call again"), "working"},
	} {
		if got := respText(serve(taskMsg("tasks/get", c.id))); !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("tasks/get after the restart: %s; want %s", got, c.want)
		}
	}
	list := respText(serve(`{"jsonrpc":"2.0","id":6,"method":"tasks/list","params":{}}`))
	if !strings.Contains(list, `"status":"completed"`) || !strings.Contains(list, `"status":"cancelled"`) || strings.Count(list, `"status":"failed"`) != 2 {
		t.Errorf("tasks/list after the restart: %s; want the ended tasks as they ended", list)
	}

	lost := `task ` + quoteTaskID(completed) + ` of plugin "mem" had completed, but its result was lost with the plugin's process: ` + how
	for _, msg := range []string{taskMsg("tasks/result", completed), extTaskMsg("tasks/get", completed)} {
		resp := serve(msg)
		if resp.Error == nil || resp.Error.Code != codeInternalError || !strings.Contains(resp.Error.Message, lost) {
			t.Errorf("%s: %s; want -32603 saying %s", msg, respText(resp), lost)
		}
	}
	if resp := serve(taskMsg("tasks/cancel", completed)); resp.Error == nil || resp.Error.Code != codeInvalidParams || !strings.Contains(resp.Error.Message, "has already ended: it is completed") {
		t.Errorf("tasks/cancel of the completed task: %s; want -32602 saying it is completed", respText(resp))
	}
	if got := respText(serve(taskMsg("tasks/result", working))); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "restarted (plugin process exit status 1), and this task ended with its process") {
		t.Errorf("tasks/result of the task at work when its process ended: %s; want the failure", got)
	}

	// Reading the lost t1 leaves alone what the new t1 asks.
	if got := respText(serve(extTaskMsg("tasks/get", working))); !strings.Contains(got, `"status":"failed"`) {
		t.Errorf("2026-07-28 tasks/get of the task at work: %s; want failed", got)
	}
	if got := respText(serve(extTaskMsg("tasks/get", renewed))); !strings.Contains(got, `"status":"input_required"`) {
		t.Errorf("2026-07-28 tasks/get of the new process's t1: %s; want its request still pending", got)
	}
}

// endingRunner is a plugin whose process ends while it makes a task: the
// task is made, then the process ends before the gateway indexes it.
type endingRunner struct {
	*memTasks
	ended func()
}

func (r endingRunner) StartTask(ctx context.Context, args json.RawMessage, ttlMs *int64, caps *protov1.PeerCapabilities) (string, protov1.Task, error) {
	plugin, t, err := r.memTasks.StartTask(ctx, args, ttlMs, caps)
	r.memTasks.restart("2026-01-01T00:00:01Z")
	r.ended()
	return plugin, t, err
}

// TestTaskLostWhileMade: a task whose plugin's process ends between its
// making and its indexing is settled as lost at once, not counted until
// its ttl; a task made by the new process after an earlier end is not.
func TestTaskLostWhileMade(t *testing.T) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	var srv *Server
	runner := endingRunner{memTasks: plugins, ended: func() { srv.PluginEnded("mem", "restarted") }}
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"t0", "t1"}
		o.Tasks = &Tasks{Tool: "echo", Runner: runner}
	})
	srv = f.srv
	alice := Principal{Issuer: "token", Subject: "0"}
	se, err := srv.makeSession(alice, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer se.end()
	ttl := int64(3_600_000)
	id, task, err := srv.createTask(context.Background(), se, json.RawMessage(`{}`), &ttl, nil)
	if err != nil || task.Status != protov1.TaskFailed || !strings.Contains(task.StatusMessage, `plugin "mem" restarted`) {
		t.Fatalf("a task whose process ended while it was made: %+v, %v; want it failed at once", task, err)
	}
	if got := srv.taskIndex.held.of(alice); got != 0 {
		t.Errorf("alice holds %d places after her only task was lost; want none", got)
	}
	if _, t2, err := srv.resolveTask(context.Background(), alice, id); err != nil || t2.Status != protov1.TaskFailed {
		t.Errorf("the lost task resolves to %+v, %v; want failed", t2, err)
	}

	// The plugin's process does not end this time: its task stands.
	srv.opts.Tasks.Runner = plugins
	if _, task, err := srv.createTask(context.Background(), se, json.RawMessage(`{}`), &ttl, nil); err != nil || task.Status != protov1.TaskWorking {
		t.Fatalf("a task of the new process: %+v, %v; want it working", task, err)
	}
	if got := srv.taskIndex.held.of(alice); got != 1 {
		t.Errorf("alice holds %d places with one task working; want 1", got)
	}
}

// TestCancelEndedTaskKeepsIt: tasks/cancel of a task that has ended is
// refused with -32602 saying so, by the gateway: a server answers it with
// the same code as a task it does not know, which must not make the
// gateway forget a task that is still there to read.
func TestCancelEndedTaskKeepsIt(t *testing.T) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	f := newFixture(t, func(o *Options) { o.Tasks = &Tasks{Tool: "echo", Runner: plugins} })
	serve := taskRequests(t, f.srv, Principal{})
	done := createTask(t, serve, 0)
	plugins.end("t1", protov1.TaskCompleted, "report ready")
	if resp := serve(taskMsg("tasks/cancel", done)); resp.Error == nil || resp.Error.Code != codeInvalidParams || !strings.Contains(resp.Error.Message, "has already ended: it is completed") {
		t.Errorf("tasks/cancel of a completed task: %s; want -32602 saying it is completed", respText(resp))
	}
	if got := respText(serve(taskMsg("tasks/get", done))); !strings.Contains(got, `"status":"completed"`) {
		t.Errorf("tasks/get after the refused cancel: %s; want the task, completed", got)
	}
	if list := respText(serve(`{"jsonrpc":"2.0","id":6,"method":"tasks/list","params":{}}`)); !strings.Contains(list, `"status":"completed"`) {
		t.Errorf("tasks/list after the refused cancel: %s; want the completed task", list)
	}
}
