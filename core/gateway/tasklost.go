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
// (PluginEnded), the gateway fails each task this process created there,
// gives its place in its principal's share back at once rather than when
// its ttl passes, and from then on answers for it itself: the plugin's new
// process knows nothing of it, and may give its id to another task.

// lostTask is a task whose plugin process ended.
type lostTask struct {
	indexedTask
	// why names the plugin and what became of it.
	why   string
	ended time.Time
}

// task is the lost task as tasks/get reports it: failed, saying why.
func (l lostTask) task() protov1.Task {
	return protov1.Task{ID: l.handle.ID, Status: protov1.TaskFailed, StatusMessage: l.why,
		CreatedAt: l.handle.Created, LastUpdated: l.ended.UTC().Format(time.RFC3339), TTLMs: l.ttlMs}
}

// PluginEnded settles the tasks this process created in plugin, whose
// process has ended and taken them with it. how says what became of the
// plugin, as "restarted (plugin process exit status 1)". Each task is
// failed with a message naming the plugin and how, its principal may
// create another in its place at once, and its creator's session and the
// listens that follow it hear that it failed.
func (s *Server) PluginEnded(plugin, how string) {
	if s.opts.Tasks == nil {
		return
	}
	why := fmt.Sprintf("plugin %q %s, and this task ended with its process; run the call again", plugin, how)
	lost := s.taskIndex.settle(plugin, why, time.Now())
	if len(lost) == 0 {
		return
	}
	s.log.Warn("tasks lost with their plugin's process", "plugin", plugin, "tasks", len(lost), "how", how)
	for id, l := range lost {
		ref := l.handle.taskRef
		s.taskInputs.forget(ref)
		s.taskWatchers.changed(ref)
		if l.session == "" {
			continue
		}
		if v, ok := s.sessions.Load(l.session); ok && v.(*session).owner == l.owner {
			v.(*session).push(notification(mcp.MethodNotificationTasksStatus, taskJSON(id, l.task())))
		}
	}
}

// lostInCreation settles the task id names as lost if its plugin's
// process ended while it was being made, since the count of ends was
// since, and the plugin's process now knows no such task: the process
// that made it was the one that ended, after PluginEnded settled the
// others. It returns the task as lost.
func (s *Server) lostInCreation(ctx context.Context, id string, h taskHandle, since uint64) (protov1.Task, bool) {
	why, ended := s.taskIndex.endedSince(h.Plugin, since)
	if !ended {
		return protov1.Task{}, false
	}
	now, err := s.opts.Tasks.Runner.GetTask(ctx, h.Plugin, h.ID)
	if err == nil && now.CreatedAt == h.Created || err != nil && !errors.Is(err, protov1.ErrNotFound) {
		return protov1.Task{}, false
	}
	l, ok := s.taskIndex.settleOne(id, why, time.Now())
	return l.task(), ok
}

// lostResult is tasks/result of a lost task: the failure its call ended in.
func lostResult(id string, l lostTask) *mcp.CallToolResult {
	out := errorResult(l.why)
	out.Meta = &mcp.Meta{AdditionalFields: map[string]any{mcp.RelatedTaskMetaKey: mcp.RelatedTaskMeta(id)}}
	return out
}

// settle moves every task of plugin to the lost, failed for why, and
// returns them by id.
func (ix *taskIndex) settle(plugin, why string, now time.Time) map[string]lostTask {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.ends++
	ix.ended[plugin] = pluginEnd{seq: ix.ends, why: why}
	lost := map[string]lostTask{}
	for id, t := range ix.tasks {
		if t.handle.Plugin == plugin {
			lost[id] = lostTask{indexedTask: t, why: why, ended: now}
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
// then, and why its tasks were lost.
type pluginEnd struct {
	seq uint64
	why string
}

// endCount is how many ends of plugin processes the index has settled.
func (ix *taskIndex) endCount() uint64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.ends
}

// endedSince returns why plugin's tasks were lost when its process last
// ended, if that was after the count of ends was since.
func (ix *taskIndex) endedSince(plugin string, since uint64) (string, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	e, ok := ix.ended[plugin]
	return e.why, ok && e.seq > since
}

// settleOne moves the task id names to the lost, failed for why.
func (ix *taskIndex) settleOne(id, why string, now time.Time) (lostTask, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	t, ok := ix.tasks[id]
	if !ok {
		return lostTask{}, false
	}
	ix.remove(id)
	ix.roomForLost(1, now)
	l := lostTask{indexedTask: t, why: why, ended: now}
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
