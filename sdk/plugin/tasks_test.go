package plugin_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// TestTasks runs a declarative plugin's tool as a task over the real gRPC
// path: it answers at once, runs on, is polled and its result fetched; a
// second is cancelled while it runs; unknown ids are not found; a plugin
// without Tasks runs none.
func TestTasks(t *testing.T) {
	release := make(chan struct{})
	p := &plugin.Plugin{Name: "slow", Version: "1", Tasks: true, Tools: []plugin.Tool{{
		Def: protov1.Tool{Name: "wait"},
		Handler: func(ctx context.Context, c *plugin.Call) (*plugin.Result, error) {
			select {
			case <-release:
				return plugin.Text("released " + string(c.Arguments)), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
	}}}
	b := plugintest.ServePlugin(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tr := b.(protov1.TaskRunner)

	first, err := tr.CreateTask(ctx, &protov1.CallRequest{Name: "wait", Arguments: []byte(`{"n":1}`)}, nil)
	if err != nil || first.Status != protov1.TaskWorking || first.TTLMs == nil || *first.TTLMs != plugin.DefaultTaskTTL.Milliseconds() {
		t.Fatalf("CreateTask = %+v, %v", first, err)
	}
	ttl := int64(60_000)
	second, err := tr.CreateTask(ctx, &protov1.CallRequest{Name: "wait"}, &ttl)
	if err != nil || *second.TTLMs != ttl {
		t.Fatalf("CreateTask with ttl = %+v, %v", second, err)
	}
	if list, err := tr.ListTasks(ctx); err != nil || len(list) != 2 {
		t.Fatalf("ListTasks = %+v, %v", list, err)
	}
	if got, err := tr.CancelTask(ctx, second.ID); err != nil || got.Status != protov1.TaskCancelled {
		t.Fatalf("CancelTask = %+v, %v", got, err)
	}
	if _, err := tr.CancelTask(ctx, second.ID); !errors.Is(err, protov1.ErrInvalidArgument) {
		t.Errorf("second CancelTask: %v; want invalid argument (already ended)", err)
	}

	close(release)
	res, err := tr.TaskResult(ctx, first.ID)
	if err != nil || res.IsError || !strings.Contains(res.Content[0].Text, `released {"n":1}`) {
		t.Fatalf("TaskResult = %+v, %v", res, err)
	}
	if got, err := tr.GetTask(ctx, first.ID); err != nil || got.Status != protov1.TaskCompleted {
		t.Errorf("GetTask after the result = %+v, %v", got, err)
	}

	if _, err := tr.GetTask(ctx, "nope"); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("GetTask of an unknown id: %v; want not found", err)
	}
	if _, err := tr.CreateTask(ctx, &protov1.CallRequest{Name: "missing"}, nil); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("CreateTask of an unknown tool: %v; want not found", err)
	}

	plain := plugintest.ServePlugin(t, kitchenSink())
	if _, err := plain.(protov1.TaskRunner).GetTask(ctx, "x"); err == nil || !strings.Contains(err.Error(), "does not run tasks") {
		t.Errorf("a plugin without Tasks: %v; want it to say it runs none", err)
	}
}

// TestTaskInput has a task's handler ask its client over the real gRPC
// path: the request reaches the host as a TaskInput event of the task, the
// task shows input_required meanwhile, and the answer given through
// AnswerTaskInput is what the handler gets; a task whose client declared
// nothing cannot ask.
func TestTaskInput(t *testing.T) {
	p := &plugin.Plugin{Name: "asker", Version: "1", Tasks: true, Tools: []plugin.Tool{{
		Def: protov1.Tool{Name: "ask"},
		Handler: func(ctx context.Context, c *plugin.Call) (*plugin.Result, error) {
			r, err := c.Elicit(ctx, plugin.ElicitRequest{Message: "name?", RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nil, err
			}
			return plugin.Text(r.Action + " " + string(r.Content)), nil
		},
	}}}
	b := plugintest.ServePlugin(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	info, err := b.GetInfo(ctx)
	if err != nil || !info.Capabilities.TaskInput {
		t.Fatalf("GetInfo: %+v, %v; want task_input declared", info.Capabilities, err)
	}
	events := make(chan protov1.Event, 8)
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	go func() { _ = b.Watch(wctx, func(e protov1.Event) { events <- e }) }()
	time.Sleep(100 * time.Millisecond) // the Watch stream is open before anything is raised
	tr := b.(protov1.TaskRunner)

	task, err := tr.CreateTask(ctx, &protov1.CallRequest{Name: "ask", TaskClient: &protov1.PeerCapabilities{Elicitation: true, ElicitationForm: true}}, nil)
	if err != nil {
		t.Fatalf("CreateTask: %v", err)
	}
	var in *protov1.TaskInput
	select {
	case e := <-events:
		in = e.TaskInput
	case <-ctx.Done():
		t.Fatal("no TaskInput event")
	}
	if in == nil || in.TaskID != task.ID || in.Method != protov1.MethodElicit || !strings.Contains(string(in.Params), "name?") {
		t.Fatalf("TaskInput = %+v", in)
	}
	if got, err := tr.GetTask(ctx, task.ID); err != nil || got.Status != protov1.TaskInputRequired {
		t.Errorf("GetTask while it asks = %+v, %v; want input_required", got, err)
	}
	answerer := b.(protov1.TaskInputAnswerer)
	if err := answerer.AnswerTaskInput(ctx, task.ID, in.Key, []byte(`{"action":"accept","content":{"name":"Ada"}}`), nil); err != nil {
		t.Fatalf("AnswerTaskInput: %v", err)
	}
	res, err := tr.TaskResult(ctx, task.ID)
	if err != nil || res.IsError || res.Content[0].Text != `accept {"name":"Ada"}` {
		t.Fatalf("TaskResult = %+v, %v", res, err)
	}
	if err := answerer.AnswerTaskInput(ctx, task.ID, in.Key, []byte(`{"action":"decline"}`), nil); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("a second answer: %v; want not found", err)
	}

	mute, err := tr.CreateTask(ctx, &protov1.CallRequest{Name: "ask"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = tr.TaskResult(ctx, mute.ID)
	if err != nil || !res.IsError {
		t.Errorf("a task whose client can be asked nothing: %+v, %v; want the handler's error", res, err)
	}
}
