package gateway

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A task's backend may ask its client something while the task runs
// (sampling, elicitation, roots), long after the request that made the task
// was answered. The plugin raises each such request as a TaskInput; the
// gateway holds it here until the client answers, and hands the answer back
// to the plugin. A client of the 2026-07-28 tasks extension sees the held
// requests as the task's inputRequests (tasks/get) and answers with
// tasks/update; a 2025-11-25 client is sent them as ordinary requests tagged
// with the task, on the stream of its tasks/result, as that version asks.

// maxTaskInputs bounds what one task may have pending.
const maxTaskInputs = 64

// taskAnswerTimeout bounds handing an answer (or a refusal) to a plugin.
const taskAnswerTimeout = 30 * time.Second

type taskInputs struct {
	mu   sync.Mutex
	held map[taskRef]map[string]json.RawMessage // key → {"method", "params"}
	// changed is closed, and dropped, when a task's pending requests change.
	changed map[taskRef]chan struct{}
}

// raise holds what a task asks; false when the task has too much pending.
func (ti *taskInputs) raise(ref taskRef, in protov1.TaskInput) bool {
	params := in.Params
	if !present(params) {
		// roots/list has no params, but clients decode an absent one badly.
		params = json.RawMessage(`{}`)
	}
	b, err := json.Marshal(map[string]any{"method": in.Method, "params": params})
	if err != nil {
		return false
	}
	ti.mu.Lock()
	defer ti.mu.Unlock()
	if ti.held == nil {
		ti.held, ti.changed = map[taskRef]map[string]json.RawMessage{}, map[taskRef]chan struct{}{}
	}
	p := ti.held[ref]
	if p == nil {
		p = map[string]json.RawMessage{}
		ti.held[ref] = p
	}
	if len(p) >= maxTaskInputs {
		return false
	}
	p[in.Key] = b
	ti.signal(ref)
	return true
}

// signal wakes who watches ref; the caller holds mu.
func (ti *taskInputs) signal(ref taskRef) {
	if ch, ok := ti.changed[ref]; ok {
		close(ch)
		delete(ti.changed, ref)
	}
}

// watch returns a channel closed at the next change of ref's requests.
func (ti *taskInputs) watch(ref taskRef) <-chan struct{} {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	if ti.changed == nil {
		ti.held, ti.changed = map[taskRef]map[string]json.RawMessage{}, map[taskRef]chan struct{}{}
	}
	ch, ok := ti.changed[ref]
	if !ok {
		ch = make(chan struct{})
		ti.changed[ref] = ch
	}
	return ch
}

func (ti *taskInputs) pending(ref taskRef) map[string]json.RawMessage {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	return maps.Clone(ti.held[ref])
}

// take removes key of ref; false when it was not pending (answered already,
// withdrawn, never asked).
func (ti *taskInputs) take(ref taskRef, key string) bool {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	p := ti.held[ref]
	if _, ok := p[key]; !ok {
		return false
	}
	delete(p, key)
	if len(p) == 0 {
		delete(ti.held, ref)
	}
	ti.signal(ref)
	return true
}

// forget drops a task that ended or is gone.
func (ti *taskInputs) forget(ref taskRef) {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	delete(ti.held, ref)
	ti.signal(ref)
}

// answer hands the plugin the client's answers to ref's pending requests;
// answers to keys not pending are ignored, as the extension asks.
func (ti *taskInputs) answer(ctx context.Context, runner TaskRunner, ref taskRef, responses map[string]json.RawMessage, log func(msg string, args ...any)) {
	for key, res := range responses {
		if !present(res) || !isJSONObject(res) || !ti.take(ref, key) {
			continue
		}
		if err := runner.AnswerTaskInput(ctx, ref.Plugin, ref.ID, key, res, nil); err != nil {
			log("task input answer not delivered", "plugin", ref.Plugin, "task", ref.ID, "key", key, "error", err)
		}
	}
}

// TaskInput takes what a plugin's task asks its client, or withdrew. A task
// no client of this gateway follows is refused at once, so its backend does
// not wait for nothing.
func (s *Server) TaskInput(plugin string, in protov1.TaskInput) {
	if s.opts.Tasks == nil {
		return
	}
	ref := taskRef{Plugin: plugin, ID: in.TaskID}
	defer s.taskWatchers.changed(ref)
	if in.Withdrawn {
		s.taskInputs.take(ref, in.Key)
		return
	}
	why := ""
	if _, _, ok := s.taskIndex.find(ref); !ok {
		why = "no client of this gateway follows the task"
	} else if !s.taskInputs.raise(ref, in) {
		why = "the task has too many requests pending"
	}
	if why == "" {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), taskAnswerTimeout)
		defer cancel()
		err := s.opts.Tasks.Runner.AnswerTaskInput(ctx, plugin, in.TaskID, in.Key, nil,
			&protov1.PeerError{Method: in.Method, Code: protov1.CodeNoPeer, Message: in.Method + ": " + why})
		if err != nil {
			s.log.Debug("task input refusal not delivered", "plugin", plugin, "task", in.TaskID, "error", err)
		}
	}()
}

// forwardTaskInputs sends a 2025-11-25 client, on the stream of its
// tasks/result of task id, what the task asks while the request waits, and
// hands the plugin the answers. The returned func stops it and waits.
func (s *Server) forwardTaskInputs(ctx context.Context, se *session, id string, ref taskRef) (stop func()) {
	rs := requestFrom(ctx)
	if se == nil || se.perRequest || rs == nil || rs.stream == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	ev := &callEvents{srv: s, stream: rs.stream, session: se}
	peer := &streamPeer{srv: s, se: se, caps: peerCapabilities(se.GetClientCapabilities()), ev: ev, call: ctx}
	var wg sync.WaitGroup
	ask := func(key string, req json.RawMessage) {
		defer wg.Done()
		var r struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if json.Unmarshal(req, &r) != nil {
			return
		}
		if r.Params == nil {
			r.Params = map[string]any{}
		}
		meta, _ := r.Params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[mcp.RelatedTaskMetaKey] = mcp.RelatedTaskMeta(id)
		r.Params["_meta"] = meta
		params, _ := json.Marshal(r.Params)
		res, err := peer.Request(ctx, r.Method, params)
		if ctx.Err() != nil || !s.taskInputs.take(ref, key) {
			// Unanswered, it stays pending for the next tasks/result.
			return
		}
		perr, _ := err.(*protov1.PeerError)
		if err != nil && perr == nil {
			perr = &protov1.PeerError{Method: r.Method, Code: mcp.INTERNAL_ERROR, Message: err.Error()}
		}
		actx, acancel := context.WithTimeout(context.WithoutCancel(ctx), taskAnswerTimeout)
		defer acancel()
		if err := s.opts.Tasks.Runner.AnswerTaskInput(actx, ref.Plugin, ref.ID, key, res, perr); err != nil {
			s.log.Warn("task input answer not delivered", "plugin", ref.Plugin, "task", ref.ID, "key", key, "error", err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sent := map[string]bool{}
		for {
			changed := s.taskInputs.watch(ref)
			for key, req := range s.taskInputs.pending(ref) {
				if !sent[key] {
					sent[key] = true
					wg.Add(1)
					go ask(key, req)
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() {
		cancel()
		<-done
		wg.Wait()
		ev.close()
	}
}
