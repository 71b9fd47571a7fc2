package plugin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A plugin with Tasks set keeps its tasks in memory: each runs its tool's
// handler on a goroutine of its own, cut off from the request that made it,
// until the handler returns, the task is cancelled, or its ttl passes. A
// task is gone once the plugin process ends.

// DefaultTaskTTL is how long a task and its result are kept when the client
// asks for no ttl.
const DefaultTaskTTL = time.Hour

// taskBackend is a backend that runs its tools as tasks too.
type taskBackend struct {
	*backend
	mu    sync.Mutex
	tasks map[string]*runningTask
}

type runningTask struct {
	task    protov1.Task
	created time.Time
	cancel  context.CancelFunc
	done    chan struct{} // closed once result is set
	result  *Result
	// asks are what the handler waits for its client to answer, by key
	// (taskinput.go); seq numbers the keys.
	asks map[string]chan taskAnswer
	seq  int
}

var _ protov1.TaskRunner = (*taskBackend)(nil)

func (b *taskBackend) GetInfo(ctx context.Context) (protov1.Info, error) {
	info, err := b.backend.GetInfo(ctx)
	info.Capabilities.Tasks, info.Capabilities.TaskInput = true, true
	return info, err
}

func (b *taskBackend) CreateTask(_ context.Context, req *protov1.CallRequest, ttlMs *int64) (protov1.Task, error) {
	t, ok := b.tools[req.Name]
	if !ok {
		return protov1.Task{}, protov1.NotFoundf("tool %q", req.Name)
	}
	ttl := DefaultTaskTTL.Milliseconds()
	if ttlMs != nil {
		ttl = *ttlMs
	}
	now := time.Now()
	stamp := now.UTC().Format(time.RFC3339)
	// The task outlives the request that made it, so it runs under a
	// context of its own that its ttl ends at the latest.
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(ttl)*time.Millisecond)
	rt := &runningTask{
		task:    protov1.Task{ID: newTaskID(), Status: protov1.TaskWorking, CreatedAt: stamp, LastUpdated: stamp, TTLMs: &ttl},
		created: now, cancel: cancel, done: make(chan struct{}),
	}
	b.mu.Lock()
	b.dropExpired(now)
	b.tasks[rt.task.ID] = rt
	b.mu.Unlock()
	call := &Call{Name: req.Name, Arguments: req.Arguments, Meta: req.Meta}
	if req.TaskClient != nil {
		call.peer = &taskPeer{b: b, rt: rt, caps: *req.TaskClient}
	}
	// Read before the handler runs: it may change the task at once.
	created := rt.task
	go b.run(ctx, rt, t, call)
	return created, nil
}

func (b *taskBackend) run(ctx context.Context, rt *runningTask, t *Tool, call *Call) {
	defer rt.cancel()
	res, err := runHandler(ctx, t, call)
	b.mu.Lock()
	defer b.mu.Unlock()
	if rt.task.Status == protov1.TaskCancelled {
		return
	}
	switch {
	case err != nil:
		rt.result = &Result{IsError: true, Content: []Content{{Kind: protov1.KindText, Text: fmt.Sprintf("tool %q failed: %v", call.Name, err)}}}
		rt.task.Status, rt.task.StatusMessage = protov1.TaskFailed, err.Error()
	case res == nil:
		rt.result = &Result{IsError: true, Content: []Content{{Kind: protov1.KindText, Text: fmt.Sprintf("tool %q returned no result", call.Name)}}}
		rt.task.Status = protov1.TaskFailed
	case res.IsError:
		rt.result, rt.task.Status = res, protov1.TaskFailed
	default:
		rt.result, rt.task.Status = res, protov1.TaskCompleted
	}
	rt.task.LastUpdated = time.Now().UTC().Format(time.RFC3339)
	close(rt.done)
}

// runHandler runs a handler, turning a panic into an error: on a task's own
// goroutine no server recovers it.
func runHandler(ctx context.Context, t *Tool, call *Call) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return t.Handler(ctx, call)
}

func (b *taskBackend) find(id string) (*runningTask, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropExpired(time.Now())
	rt, ok := b.tasks[id]
	if !ok {
		return nil, protov1.NotFoundf("task %q", id)
	}
	return rt, nil
}

func (b *taskBackend) GetTask(_ context.Context, id string) (protov1.Task, error) {
	rt, err := b.find(id)
	if err != nil {
		return protov1.Task{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return rt.task, nil
}

func (b *taskBackend) TaskResult(ctx context.Context, id string) (*Result, error) {
	rt, err := b.find(id)
	if err != nil {
		return nil, err
	}
	select {
	case <-rt.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return rt.result, nil
}

func (b *taskBackend) ListTasks(context.Context) ([]protov1.Task, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropExpired(time.Now())
	out := make([]protov1.Task, 0, len(b.tasks))
	for _, rt := range b.tasks {
		out = append(out, rt.task)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].CreatedAt < out[j].CreatedAt || out[i].CreatedAt == out[j].CreatedAt && out[i].ID < out[j].ID
	})
	return out, nil
}

func (b *taskBackend) CancelTask(_ context.Context, id string) (protov1.Task, error) {
	rt, err := b.find(id)
	if err != nil {
		return protov1.Task{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch rt.task.Status {
	case protov1.TaskCompleted, protov1.TaskFailed, protov1.TaskCancelled:
		return protov1.Task{}, protov1.InvalidArgumentf("task %q has already ended (%s)", id, rt.task.Status)
	}
	rt.cancel()
	rt.task.Status, rt.task.LastUpdated = protov1.TaskCancelled, time.Now().UTC().Format(time.RFC3339)
	rt.result = &Result{IsError: true, Content: []Content{{Kind: protov1.KindText, Text: fmt.Sprintf("task %q was cancelled", id)}}}
	close(rt.done)
	return rt.task, nil
}

// dropExpired forgets the tasks whose ttl passed, ending any still running;
// the caller holds mu.
func (b *taskBackend) dropExpired(now time.Time) {
	for id, rt := range b.tasks {
		if now.Sub(rt.created) > time.Duration(*rt.task.TTLMs)*time.Millisecond {
			rt.cancel()
			delete(b.tasks, id)
		}
	}
}

func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
