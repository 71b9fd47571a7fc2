package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A task id reaches the one task it was issued for, and only for the
// principal it was issued to; and a principal holds a bounded share of the
// tasks the plugins keep. Both are settled here, for every protocol version.

// errUnknownTask: the id names no task of the caller's. Its answer says no
// more, whatever the reason: not issued to the caller, altered, or naming a
// task the plugin has since replaced under the same task id.
var errUnknownTask = errors.New("unknown task")

// errTooManyTasks refuses a task to a principal holding its share.
var errTooManyTasks = errors.New("too many tasks")

// createTask runs a call as a task of a plugin for se's principal and
// issues the id the client will know it by.
func (s *Server) createTask(ctx context.Context, se *session, args json.RawMessage, ttlMs *int64, caps *protov1.PeerCapabilities) (string, protov1.Task, error) {
	who := se.owner
	if !s.taskIndex.reserve(who) {
		s.log.Warn("task refused: per-principal task limit reached", "limit", s.taskShare(),
			"issuer", who.Issuer, "subject", who.Subject, "client", who.Client)
		return "", protov1.Task{}, errTooManyTasks
	}
	since := s.taskIndex.endCount()
	plugin, t, err := s.opts.Tasks.Runner.StartTask(ctx, args, ttlMs, caps)
	var h taskHandle
	if err == nil {
		h, err = newTaskHandle(taskRef{Plugin: plugin, ID: t.ID}, t.CreatedAt)
	}
	if err != nil {
		s.taskIndex.unreserve(who)
		return "", protov1.Task{}, err
	}
	id := s.encodeTaskID(who, h)
	entry := indexedTask{owner: who, handle: h, last: t}
	if !se.perRequest {
		entry.session = se.id
	}
	if t.TTLMs != nil {
		entry.expires, entry.ttlMs = time.Now().Add(time.Duration(*t.TTLMs)*time.Millisecond), t.TTLMs
	}
	s.taskIndex.add(id, entry)
	s.log.Debug("task created", "plugin", plugin, "task", t.ID)
	if lost, ok := s.lostInCreation(ctx, id, h, since); ok {
		return id, lost, nil
	}
	return id, t, nil
}

// taskShare is how many tasks one principal may hold in the plugins
// through this process: its share of what the index keeps.
func (s *Server) taskShare() int { return s.shareOf(maxIndexedTasks) }

// tooManyTasks is the refusal of errTooManyTasks.
func (s *Server) tooManyTasks(env *envelope) rpcResponse {
	return errorResponse(env.ID, codeInternalError, fmt.Sprintf(
		"tools/call of %s as a task: too many tasks of yours: the plugins already keep %d tasks this principal created through this gateway, "+
			"its limit per principal; wait until some of them expire (each is kept for its ttl), or call without a task", env.params.Name, s.taskShare()))
}

// unknownTask is the answer to a task id that reaches no task of the caller's.
func unknownTask(env *envelope, id string) rpcResponse {
	return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("%s: unknown task %s: no task of yours has this id", env.Method, quoteTaskID(id)))
}

// resolveTask finds the task id names for who, and the task as its plugin
// reports it now. errUnknownTask: id was not issued to who, or its task is
// gone and the plugin gave its task id to another; any other error is the
// plugin's (protov1.ErrNotFound: the task is gone).
func (s *Server) resolveTask(ctx context.Context, who Principal, id string) (taskHandle, protov1.Task, error) {
	h, ok := s.decodeTaskID(who, id)
	if !ok {
		return taskHandle{}, protov1.Task{}, errUnknownTask
	}
	t, err := s.currentTask(ctx, id, h)
	return h, t, err
}

// currentTask is the task h names as its plugin reports it now, provided it
// is still the one created when id was issued: this process has not made
// the plugin's task again since, and the plugin reports the creation time
// it reported then. A task the plugin replaced is errUnknownTask, and
// forgotten; one its plugin's process took with it is failed
// (tasklost.go).
func (s *Server) currentTask(ctx context.Context, id string, h taskHandle) (protov1.Task, error) {
	// A task whose process ended is not asked for: the plugin's new process
	// may have given its id to another.
	if l, ok := s.taskIndex.lostTask(id); ok {
		return l.task(), nil
	}
	if s.taskIndex.superseded(id, h) {
		return protov1.Task{}, errUnknownTask
	}
	t, err := s.opts.Tasks.Runner.GetTask(ctx, h.Plugin, h.ID)
	if err != nil {
		return protov1.Task{}, err
	}
	if t.CreatedAt != h.Created {
		s.log.Debug("task id reaches a newer task of its plugin: refused", "plugin", h.Plugin, "task", h.ID,
			"issued_for", h.Created, "created", t.CreatedAt)
		s.taskIndex.drop(id)
		return protov1.Task{}, errUnknownTask
	}
	s.taskIndex.saw(id, t)
	return t, nil
}
