package mcpstdio_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// TestEverythingTasks runs server-everything's task tool through the plugin
// over the real gRPC path: the task is created, reported on Watch, polled to
// its end and its result fetched; another is listed and cancelled; an
// unknown id is not found, and a tool that runs no task is refused.
func TestEverythingTasks(t *testing.T) {
	h := start(t, everything(t))
	events := h.watch(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	info, err := h.host.GetInfo(ctx)
	if err != nil || !info.Capabilities.Tasks {
		t.Fatalf("GetInfo: tasks capability not declared: %+v, %v", info, err)
	}
	// server-everything registers its task tool after initialize.
	if !waitFor(15*time.Second, func() bool {
		tools, err := h.host.ListTools(ctx)
		return err == nil && slices.Contains(toolNames(tools), "simulate-research-query")
	}) {
		t.Fatal("simulate-research-query never listed")
	}
	tr, ok := h.host.(protov1.TaskRunner)
	if !ok {
		t.Fatalf("the host's client %T runs no tasks", h.host)
	}

	task, err := tr.CreateTask(ctx, &protov1.CallRequest{Name: "simulate-research-query",
		Arguments: mustJSON(t, map[string]any{"topic": "plugins"})}, nil)
	if err != nil || task.ID == "" || task.Status != protov1.TaskWorking {
		t.Fatalf("CreateTask = %+v, %v", task, err)
	}
	for task.Status == protov1.TaskWorking {
		time.Sleep(200 * time.Millisecond)
		if task, err = tr.GetTask(ctx, task.ID); err != nil {
			t.Fatalf("GetTask: %v", err)
		}
	}
	if task.Status != protov1.TaskCompleted {
		t.Fatalf("task ended %+v", task)
	}
	res, err := tr.TaskResult(ctx, task.ID)
	if err != nil || res.IsError || !strings.Contains(textOf(res), "plugins") {
		t.Fatalf("TaskResult = %+v, %v", res, err)
	}
	ev := waitEvent(t, events, protov1.EventTaskStatus)
	if ev.Task == nil || ev.Task.ID != task.ID {
		t.Errorf("status event %+v is not of task %q", ev.Task, task.ID)
	}

	other, err := tr.CreateTask(ctx, &protov1.CallRequest{Name: "simulate-research-query",
		Arguments: mustJSON(t, map[string]any{"topic": "cancel me"})}, nil)
	if err != nil {
		t.Fatalf("CreateTask: %v", err)
	}
	list, err := tr.ListTasks(ctx)
	if err != nil {
		t.Fatalf("ListTasks: %v", err)
	}
	listed := map[string]bool{}
	for _, lt := range list {
		listed[lt.ID] = true
	}
	if !listed[task.ID] || !listed[other.ID] {
		t.Errorf("ListTasks = %+v; want %q and %q", list, task.ID, other.ID)
	}
	if got, err := tr.CancelTask(ctx, other.ID); err != nil || got.Status != protov1.TaskCancelled {
		t.Errorf("CancelTask = %+v, %v", got, err)
	}

	if _, err := tr.GetTask(ctx, "no-such-task"); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("GetTask of an unknown id: %v; want not found", err)
	}
	_, err = tr.CreateTask(ctx, &protov1.CallRequest{Name: "echo", Arguments: mustJSON(t, map[string]any{"message": "x"})}, nil)
	if !errors.Is(err, protov1.ErrNoTask) || !strings.Contains(err.Error(), `"echo"`) {
		t.Errorf("CreateTask of echo, which runs no task: %v; want ErrNoTask naming it, before anything runs", err)
	}
}

// TestEverythingTaskInput runs server-everything's task tool in its
// ambiguous mode, whose server asks its client to clarify the topic with an
// elicitation held until someone calls tasks/result: the plugin raises it as
// a TaskInput event of the task, and the answer given through
// AnswerTaskInput reaches the server and shows in the task's result.
func TestEverythingTaskInput(t *testing.T) {
	h := start(t, everything(t))
	events := h.watch(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !waitFor(15*time.Second, func() bool {
		tools, err := h.host.ListTools(ctx)
		return err == nil && slices.Contains(toolNames(tools), "simulate-research-query")
	}) {
		t.Fatal("simulate-research-query never listed")
	}
	tr := h.host.(protov1.TaskRunner)
	answerer, ok := h.host.(protov1.TaskInputAnswerer)
	if !ok {
		t.Fatalf("the host's client %T takes no task input answers", h.host)
	}
	task, err := tr.CreateTask(ctx, &protov1.CallRequest{Name: "simulate-research-query",
		Arguments:  mustJSON(t, map[string]any{"topic": "python", "ambiguous": true}),
		TaskClient: &protov1.PeerCapabilities{Elicitation: true, ElicitationForm: true}}, nil)
	if err != nil {
		t.Fatalf("CreateTask: %v", err)
	}
	ev := waitEvent(t, events, protov1.EventTaskInput)
	in := ev.TaskInput
	if in == nil || in.TaskID != task.ID || in.Method != protov1.MethodElicit || in.Key == "" || !strings.Contains(string(in.Params), "interpretation") {
		t.Fatalf("task input event: %+v", in)
	}
	if strings.Contains(string(in.Params), "related-task") {
		t.Errorf("the server's task tag reached the host: %s", in.Params)
	}
	if err := answerer.AnswerTaskInput(ctx, task.ID, in.Key, mustJSON(t, map[string]any{"action": "accept", "content": map[string]any{"interpretation": "snake"}}), nil); err != nil {
		t.Fatalf("AnswerTaskInput: %v", err)
	}
	if err := answerer.AnswerTaskInput(ctx, task.ID, in.Key, mustJSON(t, map[string]any{"action": "decline"}), nil); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("a second answer to %q: %v; want not found", in.Key, err)
	}
	if !waitFor(30*time.Second, func() bool {
		task, err = tr.GetTask(ctx, task.ID)
		return err == nil && task.Status == protov1.TaskCompleted
	}) {
		t.Fatalf("task never completed: %+v, %v", task, err)
	}
	res, err := tr.TaskResult(ctx, task.ID)
	if err != nil || !strings.Contains(textOf(res), "snake") {
		t.Fatalf("TaskResult = %+v, %v; want the clarification in it", res, err)
	}
}
