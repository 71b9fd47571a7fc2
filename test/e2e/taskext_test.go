package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// extRun is what testdata/ext-tasks-client.mjs saw: the requester of the
// tasks extension's own package, @modelcontextprotocol/ext-tasks.
type extRun struct {
	Wire []struct {
		Method string          `json:"method"`
		Status int             `json:"status"`
		Answer json.RawMessage `json:"answer"`
	} `json:"wire"`
	Asked []struct {
		Kind     string          `json:"kind"`
		Scope    string          `json:"scope"`
		Delivery string          `json:"delivery"`
		TaskID   string          `json:"taskId"`
		Params   json.RawMessage `json:"params"`
	} `json:"asked"`
	Kind     string   `json:"kind"`
	TaskID   string   `json:"taskId"`
	Statuses []string `json:"statuses"`
	Outcome  struct {
		Status string  `json:"status"`
		Result *result `json:"result"`
		Error  string  `json:"error"`
	} `json:"outcome"`
	Snapshot *struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
	} `json:"snapshot"`
	Response *struct {
		Kind   string          `json:"kind"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	} `json:"response"`
	Streamed []struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"streamed"`
	Error string `json:"error"`
}

// methods are the methods the client sent, in order.
func (r extRun) methods() []string {
	var out []string
	for _, w := range r.Wire {
		out = append(out, w.Method)
	}
	return out
}

// runExtClient runs ext-tasks-client.mjs against the gateway at url as the
// principal of token.
func runExtClient(t *testing.T, url, token string, args ...string) extRun {
	t.Helper()
	var run extRun
	env := []string{"NODE_PARTS=" + testparts.NodeModules(t)}
	testparts.RunNodeJSON(t, 90*time.Second, &run, env, testdataScript(t, "ext-tasks-client.mjs"), append([]string{url, token}, args...)...)
	return run
}

// TestTasksExtensionClient drives server-everything's task tool through
// call_tool over protocol 2026-07-28 with the tasks extension's own client
// package: the call becomes a task, which is polled with tasks/get; in its
// ambiguous mode the server's elicitation surfaces as the task's
// inputRequests and the client's tasks/update answer reaches the server,
// whose report shows it; a second task is cancelled; another principal
// cannot see either; a tool that runs no task answers at once; a listen of
// a task's id hears it to its end; and tasks/result is not part of the
// protocol.
func TestTasksExtensionClient(t *testing.T) {
	g := startGateway(t, setup{
		Plugins: everythingPlugin(t, "everything", true),
		Listen:  `tokens = ["alice-secret", "bob-secret"]`,
	})
	alice := connectHTTPAs(t, g.URL, "alice-secret")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	waitTool(ctx, t, alice, researchTool)
	url := g.URL

	run := runExtClient(t, url, "alice-secret", researchTool, `{"topic":"python","ambiguous":true}`, "settle")
	if run.Error != "" || run.Kind != "task" || !strings.HasPrefix(run.TaskID, "tg2.") {
		t.Fatalf("the call did not become a gateway task: %+v", run)
	}
	if run.Outcome.Status != "completed" || run.Outcome.Result == nil || !strings.Contains(run.Outcome.Result.text(), "Research Report: python (snake)") {
		t.Fatalf("outcome %+v; want the report with the clarification the client gave", run.Outcome)
	}
	if len(run.Asked) != 1 || run.Asked[0].Kind != "elicitation" || run.Asked[0].Scope != "task" ||
		run.Asked[0].Delivery != "task-update" || run.Asked[0].TaskID != run.TaskID || !strings.Contains(string(run.Asked[0].Params), "interpretation") {
		t.Fatalf("input the client was asked: %+v; want the server's one elicitation, delivered through the task", run.Asked)
	}
	if !slices.Contains(run.Statuses, "input_required") || run.Statuses[len(run.Statuses)-1] != "completed" {
		t.Errorf("statuses seen %v; want input_required on the way to completed", run.Statuses)
	}
	methods := run.methods()
	if !slices.Contains(methods, "tasks/update") || !slices.Contains(methods, "tasks/get") || slices.Contains(methods, "tasks/result") {
		t.Errorf("methods sent %v; want tasks/get and tasks/update, no tasks/result", methods)
	}
	for _, w := range run.Wire {
		if w.Method == "tools/call" && !bytes.Contains(w.Answer, []byte(`"resultType":"task"`)) {
			t.Errorf("the tools/call answer is no CreateTaskResult: %s", w.Answer)
		}
	}

	cancelled := runExtClient(t, url, "alice-secret", researchTool, `{"topic":"cancel me"}`, "cancel")
	if cancelled.Error != "" || cancelled.Kind != "task" || cancelled.Outcome.Status != "cancelled" {
		t.Fatalf("cancelled task: %+v", cancelled)
	}
	if got := runExtClient(t, url, "alice-secret", "", "", "snapshot", cancelled.TaskID); got.Snapshot == nil || got.Snapshot.Status != "cancelled" {
		t.Errorf("tasks/get after tasks/cancel: %+v", got)
	}
	for _, id := range []string{run.TaskID, cancelled.TaskID} {
		got := runExtClient(t, url, "bob-secret", "", "", "snapshot", id)
		if got.Snapshot != nil || !strings.Contains(got.Error, "unknown task") || !strings.Contains(got.Error, "-32602") && !strings.Contains(got.Error, "no task of yours") {
			t.Errorf("bob's tasks/get of alice's task %s: %+v", id, got)
		}
	}

	immediate := runExtClient(t, url, "alice-secret", "x_everything_echo", `{"message":"no task"}`, "settle")
	if immediate.Error != "" || immediate.Kind != "immediate" || immediate.Outcome.Result == nil || !strings.Contains(immediate.Outcome.Result.text(), "no task") {
		t.Errorf("a tool that runs no task: %+v", immediate)
	}

	// A listen of a fresh task's id hears it to its end.
	created := runExtClient(t, url, "alice-secret", "", "", "raw", "tools/call", `{"name":"call_tool","arguments":{"name":"`+researchTool+`","arguments":{"topic":"listening"}}}`)
	var task struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
	}
	if created.Response == nil || json.Unmarshal(created.Response.Result, &task) != nil || task.ResultType != "task" {
		t.Fatalf("raw task-creating call: %+v", created)
	}
	heard := runExtClient(t, url, "alice-secret", "", "", "raw", "subscriptions/listen", `{"notifications":{"taskIds":["`+task.TaskID+`","`+run.TaskID+`x"]}}`)
	var statuses []string
	for _, m := range heard.Streamed {
		switch m.Method {
		case "notifications/subscriptions/acknowledged":
			if !strings.Contains(string(m.Params), `"taskIds":["`+task.TaskID+`"]`) {
				t.Errorf("acknowledged %s; want only the real task's id", m.Params)
			}
		case "notifications/tasks":
			var p struct {
				TaskID string  `json:"taskId"`
				Status string  `json:"status"`
				Result *result `json:"result"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if p.TaskID != task.TaskID {
				t.Errorf("notification of another task: %s", m.Params)
			}
			if p.Status == "completed" && (p.Result == nil || !strings.Contains(p.Result.text(), "listening")) {
				t.Errorf("completed without its report: %s", m.Params)
			}
			if len(statuses) == 0 || statuses[len(statuses)-1] != p.Status {
				statuses = append(statuses, p.Status)
			}
		}
	}
	if len(statuses) < 2 || statuses[0] != "working" || statuses[len(statuses)-1] != "completed" || heard.Response == nil || heard.Response.Error != nil {
		t.Errorf("listen heard %v, ended %+v; want working through completed, then the end of the stream", statuses, heard.Response)
	}

	raw := runExtClient(t, url, "alice-secret", "", "", "raw", "tasks/result", `{"taskId":"`+run.TaskID+`"}`)
	if raw.Response == nil || raw.Response.Error == nil || raw.Response.Error.Code != -32601 {
		t.Errorf("tasks/result on 2026-07-28: %+v; want -32601", raw)
	}
	g.requireAlive()
}

// TestTasksInputOnLegacy runs the ambiguous research task with the
// TypeScript SDK's 2025-11-25 task client: once the task waits for input
// the SDK calls tasks/result, and the server's elicitation reaches it on
// that stream as an ordinary request tagged with the gateway's task id.
func TestTasksInputOnLegacy(t *testing.T) {
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true)})
	url := g.URL
	c := connectTS(t, "http", url)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	waitTool(ctx, t, c.mcpClient, researchTool)

	first, last, raw := callTask(ctx, t, c.mcpClient, map[string]any{"topic": "python", "ambiguous": true})
	if first.Type != "taskCreated" || first.Task == nil || last.Type != "result" || last.Result == nil ||
		!strings.Contains(last.Result.text(), "Clarification") || strings.Contains(last.Result.text(), "elicitation unavailable") {
		t.Fatalf("the task did not finish with the client's clarification: %s", raw)
	}
	seenRaw, err := c.send("seen", "", nil, sdkTimeout(ctx)).wait(ctx)
	if err != nil {
		t.Fatalf("seen: %v", err)
	}
	var seen struct {
		Requests []struct {
			Method      string `json:"method"`
			RelatedTask string `json:"relatedTask"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(seenRaw, &seen); err != nil {
		t.Fatalf("seen: %v: %s", err, seenRaw)
	}
	n := 0
	for _, r := range seen.Requests {
		if r.Method == "elicitation/create" {
			n++
			if r.RelatedTask != first.Task.TaskID {
				t.Errorf("elicitation tagged with task %q; want the gateway's id %q", r.RelatedTask, first.Task.TaskID)
			}
		}
	}
	if n != 1 {
		t.Errorf("the client was sent %d elicitations; want 1: %s", n, seenRaw)
	}
	g.requireAlive()
}
