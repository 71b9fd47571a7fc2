package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A client of the tasks extension hears of its tasks on a
// subscriptions/listen whose notifications name taskIds: the gateway
// acknowledges the ids it agreed to (the caller's own), sends each task's
// DetailedTask at once and again whenever it changes (notifications/tasks,
// what tasks/get would answer then), and ends the stream once every task is
// terminal. A listen that asks for anything besides taskIds is served as any
// other, and agrees to no task ids.

// methodNotificationTasks is the extension's task status notification.
const methodNotificationTasks = "notifications/tasks"

// listenRecheck is how often a task listen asks for its tasks unprompted.
const listenRecheck = 2 * time.Second

// taskWatchers wakes the listens that follow a task when it changes.
type taskWatchers struct {
	mu sync.Mutex
	by map[taskRef]map[chan struct{}]struct{}
}

func (w *taskWatchers) add(refs []taskRef, ch chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil {
		w.by = map[taskRef]map[chan struct{}]struct{}{}
	}
	for _, ref := range refs {
		if w.by[ref] == nil {
			w.by[ref] = map[chan struct{}]struct{}{}
		}
		w.by[ref][ch] = struct{}{}
	}
}

func (w *taskWatchers) remove(refs []taskRef, ch chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ref := range refs {
		delete(w.by[ref], ch)
		if len(w.by[ref]) == 0 {
			delete(w.by, ref)
		}
	}
}

// changed wakes who follows ref; a wake already pending covers this one.
func (w *taskWatchers) changed(ref taskRef) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.by[ref] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// listenTasks serves a 2026-07-28 subscriptions/listen of task ids alone;
// ok is false for any other listen.
func (s *Server) listenTasks(ctx context.Context, se *session, env *envelope) (rpcResponse, bool) {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	if json.Unmarshal(env.Params, &p) != nil || len(p.Notifications) != 1 || p.Notifications["taskIds"] == nil {
		return rpcResponse{}, false
	}
	rs := requestFrom(ctx)
	if rs == nil || rs.stream == nil {
		return rpcResponse{}, false
	}
	if !declaresTasks(env) {
		return missingTasksExtension(env), true
	}
	var ids []string
	if err := json.Unmarshal(p.Notifications["taskIds"], &ids); err != nil {
		return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("subscriptions/listen: notifications.taskIds must be an array of task ids: %v", err)), true
	}
	agreed := []string{}
	var handles []taskHandle
	var refs []taskRef
	for _, id := range ids {
		if h, ok := s.decodeTaskID(se.owner, id); ok && !slices.Contains(agreed, id) {
			agreed = append(agreed, id)
			handles = append(handles, h)
			refs = append(refs, h.taskRef)
		}
	}
	send := func(method string, params map[string]any) error {
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[mcp.MetaKeySubscriptionID] = env.ID
		params["_meta"] = meta
		return rs.stream.send(rpcNotification{JSONRPC: mcp.JSONRPC_VERSION, Method: method, Params: params})
	}
	if err := send(string(mcp.MethodNotificationSubscriptionsAcknowledged), map[string]any{"notifications": map[string]any{"taskIds": agreed}}); err != nil {
		s.log.Debug("task listen not acknowledged", "error", err)
	}
	wake := make(chan struct{}, 1)
	s.taskWatchers.add(refs, wake)
	defer s.taskWatchers.remove(refs, wake)
	ctx, cancel := stopWith(ctx, rs.stop, s.closed)
	defer cancel()

	// A plugin that reports no status changes is asked again now and then.
	tick := time.NewTicker(listenRecheck)
	defer tick.Stop()
	status, sent := map[string]string{}, map[string]string{}
	for open := len(refs) > 0; open; {
		open = false
		for i, h := range handles {
			id := agreed[i]
			if terminal(status[id]) {
				continue
			}
			now, err := s.currentTask(ctx, id, h)
			var t map[string]any
			if err == nil {
				t, err = s.detailedTask(ctx, h.taskRef, id, now)
			}
			if err != nil {
				// Gone, or unreadable: nothing more will be said of it.
				status[id] = protov1.TaskCancelled
				continue
			}
			if b, _ := json.Marshal(t); string(b) != sent[id] {
				sent[id] = string(b)
				if err := send(methodNotificationTasks, t); err != nil {
					s.log.Debug("task listen closed", "error", err)
					break
				}
			}
			status[id], _ = t["status"].(string)
			open = open || !terminal(status[id])
		}
		if !open {
			break
		}
		select {
		case <-wake:
		case <-tick.C:
		case <-ctx.Done():
			open = false
		}
	}
	resp := s.taskAnswer(env, map[string]any{})
	resp.Result.(map[string]any)["_meta"].(map[string]any)[mcp.MetaKeySubscriptionID] = env.ID
	return resp, true
}
