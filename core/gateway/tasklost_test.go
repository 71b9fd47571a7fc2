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
	serve := func(msg string) rpcResponse {
		t.Helper()
		env, err := parseEnvelope([]byte(msg))
		if err != nil {
			t.Fatal(err)
		}
		se, err := f.srv.makeSession(alice, 0)
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
	answer := func(resp rpcResponse) string {
		b, _ := json.Marshal(resp)
		return string(b)
	}
	const create = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"task":{"ttl":3600000}}}`
	var ids []string
	for i := range maxTasksPerPrincipal {
		resp := serve(create)
		var r struct{ Task struct{ TaskID string } }
		if b, _ := json.Marshal(resp.Result); resp.Error != nil || json.Unmarshal(b, &r) != nil {
			t.Fatalf("alice's task %d: %s", i+1, answer(resp))
		}
		ids = append(ids, r.Task.TaskID)
	}
	if resp := serve(create); resp.Error == nil || !strings.Contains(resp.Error.Message, "too many tasks of yours") {
		t.Fatalf("alice past her share: %s", answer(resp))
	}

	f.srv.PluginEnded("other", "restarted (plugin process exit status 1)")
	if resp := serve(create); resp.Error == nil {
		t.Fatal("another plugin's restart freed alice's places")
	}
	// The plugin's process ends; its new one makes t1 again, the same
	// plugin id as alice's first task, with the same createdAt.
	plugins.restart("")
	f.srv.PluginEnded("mem", "restarted (plugin process signal: killed; next try in 0s)")
	const why = `plugin "mem" restarted (plugin process signal: killed; next try in 0s), and this task ended with its process; run the call again`
	if resp := serve(create); resp.Error != nil {
		t.Fatalf("alice refused once her plugin's restart took her tasks: %s", answer(resp))
	}

	get := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":%q}}`, ids[0])
	if got := answer(serve(get)); !strings.Contains(got, `"status":"failed"`) || !strings.Contains(got, fmt.Sprintf("%q", why)) {
		t.Errorf("tasks/get of a lost task: %s; want failed, saying %s", got, why)
	}
	result := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":%q}}`, ids[0])
	if got := answer(serve(result)); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, `restarted`) || strings.Contains(got, "done t1") {
		t.Errorf("tasks/result of a lost task: %s; want the failure, not the new t1's result", got)
	}
	cancel := fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tasks/cancel","params":{"taskId":%q}}`, ids[0])
	if resp := serve(cancel); resp.Error == nil || resp.Error.Code != codeInvalidParams || !strings.Contains(resp.Error.Message, "has already ended: "+why) {
		t.Errorf("tasks/cancel of a lost task: %s; want -32602 saying it ended and why", answer(resp))
	}
	extCancel := fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tasks/cancel","params":{"taskId":%q,"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, ids[0])
	if resp := serve(extCancel); resp.Error != nil {
		t.Errorf("2026-07-28 tasks/cancel of a lost task: %s; want it acknowledged, as for any ended task", answer(resp))
	}
	if now, _ := plugins.GetTask(context.Background(), "mem", "t1"); now.Status != protov1.TaskWorking {
		t.Errorf("the new process's t1 is %s after requests about the lost t1; want it untouched", now.Status)
	}
	extGet := strings.Replace(extCancel, "tasks/cancel", "tasks/get", 1)
	if got := answer(serve(extGet)); !strings.Contains(got, `"status":"failed"`) || !strings.Contains(got, `"error":{"code":-32603,"message":`+fmt.Sprintf("%q", why)) {
		t.Errorf("2026-07-28 tasks/get of a lost task: %s; want failed with the reason as its error", got)
	}
	list := answer(serve(`{"jsonrpc":"2.0","id":6,"method":"tasks/list","params":{}}`))
	if strings.Count(list, `"status":"failed"`) != maxTasksPerPrincipal || strings.Count(list, `"status":"working"`) != 1 {
		t.Errorf("tasks/list after the restart lists %d failed and %d working; want %d lost and the new one",
			strings.Count(list, `"status":"failed"`), strings.Count(list, `"status":"working"`), maxTasksPerPrincipal)
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
