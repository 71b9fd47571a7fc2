package gateway

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A task lives in its plugin's process, and ends with it: a crash, a
// restart or a stop takes every task the process kept. Told so
// (PluginEnded), the gateway settles each task this process created there,
// gives its place in its principal's share back at once rather than when
// its ttl passes, and from then on answers for it itself: the plugin's new
// process knows nothing of it, and may give its id to another task.
//
// A task still at work is failed. One that had already ended (completed,
// failed, cancelled) stays as it ended, since MCP lets no task leave a
// terminal state; what went with the process is its result, and asking
// for that result is answered with an error saying so.

// lostTask is a task whose plugin process ended.
type lostTask struct {
	indexedTask
	// how says what became of the plugin, as PluginEnded was told.
	how   string
	ended time.Time
}

// endedBefore reports whether the task had ended before its process did,
// its result lost with the process.
func (l lostTask) endedBefore() bool { return terminal(l.last.Status) }

// why is the failure of a task its process took while at work: it names
// the plugin and what became of it.
func (l lostTask) why() string {
	return fmt.Sprintf("plugin %q %s, and this task ended with its process; run the call again", l.handle.Plugin, l.how)
}

// task is the lost task as tasks/get reports it: as it ended, or failed,
// saying why.
func (l lostTask) task() protov1.Task {
	if l.endedBefore() {
		t := l.last
		t.ID = l.handle.ID
		return t
	}
	return protov1.Task{ID: l.handle.ID, Status: protov1.TaskFailed, StatusMessage: l.why(),
		CreatedAt: l.handle.Created, LastUpdated: l.ended.UTC().Format(time.RFC3339), TTLMs: l.ttlMs}
}

// resultLostError is the answer for the result of a task that had ended
// before its plugin's process did: the result was kept in that process.
type resultLostError struct {
	id, plugin, status, how string
}

func (e *resultLostError) Error() string {
	ended := e.status
	if ended == protov1.TaskCancelled {
		ended = "been cancelled"
	}
	return fmt.Sprintf("task %s of plugin %q had %s, but its result was lost with the plugin's process: plugin %q %s; run the call again for a new result",
		quoteTaskID(e.id), e.plugin, ended, e.plugin, e.how)
}

// resultLost is the error for the result of the lost task id names, which
// had ended before its process.
func (l lostTask) resultLost(id string) error {
	return &resultLostError{id: id, plugin: l.handle.Plugin, status: l.last.Status, how: l.how}
}

// PluginEnded settles the tasks this process created in plugin, whose
// process has ended and taken them with it. how says what became of the
// plugin, as "restarted (plugin process exit status 1)". Each task still
// at work is failed with a message naming the plugin and how, and its
// creator's session and the listens that follow it hear so; one that had
// ended keeps its state. Either way its principal may create another in
// its place at once.
func (s *Server) PluginEnded(plugin, how string) {
	if s.opts.Tasks == nil {
		return
	}
	lost := s.taskIndex.settle(plugin, how, time.Now())
	if len(lost) == 0 {
		return
	}
	failed := 0
	for id, l := range lost {
		ref := l.handle.taskRef
		s.taskInputs.forget(ref)
		s.taskWatchers.changed(ref)
		if l.endedBefore() {
			continue
		}
		failed++
		if l.session == "" {
			continue
		}
		if v, ok := s.sessions.Load(l.session); ok && v.(*session).owner == l.owner {
			v.(*session).push(notification(mcp.MethodNotificationTasksStatus, taskJSON(id, l.task())))
		}
	}
	s.log.Warn("tasks lost with their plugin's process", "plugin", plugin, "tasks", len(lost), "failed", failed, "how", how)
}

// lostInCreation settles the task id names as lost if its plugin's
// process ended while it was being made, since the count of ends was
// since, and the plugin's process now knows no such task: the process
// that made it was the one that ended, after PluginEnded settled the
// others. It returns the task as lost.
func (s *Server) lostInCreation(ctx context.Context, id string, h taskHandle, since uint64) (protov1.Task, bool) {
	how, ended := s.taskIndex.endedSince(h.Plugin, since)
	if !ended {
		return protov1.Task{}, false
	}
	now, err := s.opts.Tasks.Runner.GetTask(ctx, h.Plugin, h.ID)
	if err == nil && now.CreatedAt == h.Created || err != nil && !errors.Is(err, protov1.ErrNotFound) {
		return protov1.Task{}, false
	}
	l, ok := s.taskIndex.settleOne(id, how, time.Now())
	return l.task(), ok
}

// lostResult is tasks/result of a lost task (2025-11-25). A task its
// process took while at work answers the failure its call ended in, an
// isError result as for any call its plugin's crash ended. One that had
// ended before answers an error: its result is gone, and MCP says a
// terminal task's tasks/result gives exactly what its call returned, which
// the gateway can no longer do. The code is -32603 (internal error), not
// the -32602 (invalid params) MCP gives an id that names no task: this id
// names a task tasks/get still reports, so the request is sound and the
// failure is the gateway's own.
func (s *Server) lostResult(env *envelope, id string, l lostTask) rpcResponse {
	if l.endedBefore() {
		return errorResponse(env.ID, codeInternalError, fmt.Sprintf("%s: %v", env.Method, l.resultLost(id)))
	}
	out := errorResult(l.why())
	out.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.RelatedTaskMetaKey: mcp.RelatedTaskMeta(id)}}
	return s.taskAnswer(env, out)
}

// settle moves every task of plugin to the lost, and returns them by id.
func (ix *taskIndex) settle(plugin, how string, now time.Time) map[string]lostTask {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.ends++
	ix.ended[plugin] = pluginEnd{seq: ix.ends, how: how}
	lost := map[string]lostTask{}
	for id, t := range ix.tasks {
		if t.handle.Plugin == plugin {
			lost[id] = lostTask{indexedTask: t, how: how, ended: now}
			ix.remove(id)
		}
	}
	ix.roomForLost(len(lost), now)
	for id, l := range lost {
		ix.lost[id] = l
	}
	return lost
}

// pluginEnd is the last end of a plugin's process: the count of ends
// then, and what became of the plugin.
type pluginEnd struct {
	seq uint64
	how string
}

// endCount is how many ends of plugin processes the index has settled.
func (ix *taskIndex) endCount() uint64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.ends
}

// endedSince returns what became of plugin when its process last ended,
// if that was after the count of ends was since.
func (ix *taskIndex) endedSince(plugin string, since uint64) (string, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	e, ok := ix.ended[plugin]
	return e.how, ok && e.seq > since
}

// settleOne moves the task id names to the lost.
func (ix *taskIndex) settleOne(id, how string, now time.Time) (lostTask, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	t, ok := ix.tasks[id]
	if !ok {
		return lostTask{}, false
	}
	ix.remove(id)
	ix.roomForLost(1, now)
	l := lostTask{indexedTask: t, how: how, ended: now}
	ix.lost[id] = l
	return l, true
}

// roomForLost makes room for n more lost tasks: the lost are kept until
// their ttl passes, and at most as many as the index holds, the first
// lost dropped first. The caller holds mu.
func (ix *taskIndex) roomForLost(n int, now time.Time) {
	over := len(ix.lost) + n - maxIndexedTasks
	if over <= 0 {
		return
	}
	for id, l := range ix.lost {
		if !l.expires.IsZero() && now.After(l.expires) {
			delete(ix.lost, id)
			over--
		}
	}
	if over <= 0 {
		return
	}
	ids := make([]string, 0, len(ix.lost))
	for id := range ix.lost {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ix.lost[ids[i]].ended.Before(ix.lost[ids[j]].ended) })
	for _, id := range ids[:min(over, len(ids))] {
		delete(ix.lost, id)
	}
}

// lostTask returns the lost task id names, unless its ttl has passed.
func (ix *taskIndex) lostTask(id string) (lostTask, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	l, ok := ix.lost[id]
	if ok && !l.expires.IsZero() && time.Now().After(l.expires) {
		delete(ix.lost, id)
		return lostTask{}, false
	}
	return l, ok
}
