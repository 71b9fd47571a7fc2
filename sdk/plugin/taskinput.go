package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A task's handler may ask its client (call.Sample, call.Elicit, call.Roots)
// as a call's may, when the client that made the task can answer: the
// request goes to the host as a TaskInput event on Watch, the task shows
// input_required while it waits, and the host's AnswerTaskInput brings the
// client's answer back.

var _ protov1.TaskInputAnswerer = (*taskBackend)(nil)

// taskPeer is the client of one task, as its handler sees it.
type taskPeer struct {
	b    *taskBackend
	rt   *runningTask
	caps protov1.PeerCapabilities
}

func (p *taskPeer) Capabilities() protov1.PeerCapabilities { return p.caps }

func (p *taskPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	b, rt := p.b, p.rt
	ch := make(chan taskAnswer, 1)
	b.mu.Lock()
	if rt.asks == nil {
		rt.asks = map[string]chan taskAnswer{}
	}
	rt.seq++
	key := "in-" + strconv.Itoa(rt.seq)
	rt.asks[key] = ch
	id := rt.task.ID
	b.setStatus(rt)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(rt.asks, key)
		b.setStatus(rt)
		b.mu.Unlock()
	}()
	b.p.updates.send(protov1.Event{Kind: protov1.EventTaskInput, TaskInput: &protov1.TaskInput{TaskID: id, Key: key, Method: method, Params: params}})
	select {
	case a := <-ch:
		if a.err != nil {
			a.err.Method = method
			return nil, a.err
		}
		return a.result, nil
	case <-ctx.Done():
		b.p.updates.send(protov1.Event{Kind: protov1.EventTaskInput, TaskInput: &protov1.TaskInput{TaskID: id, Key: key, Withdrawn: true}})
		return nil, fmt.Errorf("%s: no answer from the client of task %q: %w", method, id, ctx.Err())
	}
}

type taskAnswer struct {
	result json.RawMessage
	err    *protov1.PeerError
}

// setStatus shows a running task as input_required while it waits for its
// client; the caller holds mu.
func (b *taskBackend) setStatus(rt *runningTask) {
	status := protov1.TaskWorking
	if len(rt.asks) > 0 {
		status = protov1.TaskInputRequired
	}
	if (rt.task.Status == protov1.TaskWorking || rt.task.Status == protov1.TaskInputRequired) && rt.task.Status != status {
		rt.task.Status, rt.task.LastUpdated = status, time.Now().UTC().Format(time.RFC3339)
	}
}

func (b *taskBackend) AnswerTaskInput(_ context.Context, taskID, key string, result json.RawMessage, perr *protov1.PeerError) error {
	rt, err := b.find(taskID)
	if err != nil {
		return err
	}
	b.mu.Lock()
	ch, ok := rt.asks[key]
	delete(rt.asks, key)
	b.mu.Unlock()
	if !ok {
		return protov1.NotFoundf("task %q asks nothing under %q (answered already, or withdrawn)", taskID, key)
	}
	ch <- taskAnswer{result: result, err: perr}
	return nil
}
