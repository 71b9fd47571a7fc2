package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Tasks lets one tool's calls run as MCP tasks (2025-11-25): a tools/call
// of Tool whose params carry "task" answers at once with the task, which
// the client follows with tasks/get, tasks/result, tasks/list and
// tasks/cancel. The gateway names the plugin that runs each task in the id
// it gives the client (taskids.go) and binds the id to the client's
// principal; everyone else is told the task does not exist.
type Tasks struct {
	// Tool is the tool whose calls may be run as tasks (call_tool).
	Tool   string
	Runner TaskRunner
}

// TaskRunner runs the tasks of Tasks.Tool in the plugins. Errors wrapping
// protov1.ErrInvalidArgument or protov1.ErrNotFound are the client's (a bad
// call, a task gone); others are the gateway's or a plugin's.
type TaskRunner interface {
	// StartTask runs the call that args of Tasks.Tool describe as a task of
	// a plugin, and names that plugin.
	// client says what the task's client answers, should the task ask.
	StartTask(ctx context.Context, args json.RawMessage, ttlMs *int64, client *protov1.PeerCapabilities) (plugin string, t protov1.Task, err error)
	GetTask(ctx context.Context, plugin, id string) (protov1.Task, error)
	TaskResult(ctx context.Context, plugin, id string) (*protov1.Result, error)
	CancelTask(ctx context.Context, plugin, id string) (protov1.Task, error)
	// AnswerTaskInput hands the plugin the client's answer to what its task
	// asked under key (taskinput.go).
	AnswerTaskInput(ctx context.Context, plugin, id, key string, result json.RawMessage, err *protov1.PeerError) error
}

const codeInvalidParams = -32602

// serveTask answers the task requests; ok is false for any other request.
func (s *Server) serveTask(ctx context.Context, se *session, env *envelope) (resp rpcResponse, ok bool) {
	tasks := s.opts.Tasks
	if tasks == nil {
		return rpcResponse{}, false
	}
	who := se.owner
	// Audit lines and traces name who runs a task as they do for a call.
	ctx = withCaller(ctx, Caller{Principal: who, Session: se.callerSession()})
	if env.modern() {
		return s.serveTaskExt(ctx, se, env)
	}
	switch mcp.MCPMethod(env.Method) {
	case mcp.MethodToolsCall:
		if env.params.Name != tasks.Tool || !present(env.params.Task) {
			return rpcResponse{}, false
		}
		return s.startTask(ctx, se, env), true
	case mcp.MethodTasksList:
		return s.taskAnswer(env, s.listTasks(ctx, who)), true
	case mcp.MethodTasksGet, mcp.MethodTasksResult, mcp.MethodTasksCancel:
	default:
		return rpcResponse{}, false
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal(env.Params, &p); err != nil || p.TaskID == "" {
		return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("%s: params.taskId is required (a task id from a task-augmented tools/call)", env.Method)), true
	}
	h, t, err := s.resolveTask(ctx, who, p.TaskID)
	if errors.Is(err, errUnknownTask) {
		return unknownTask(env, p.TaskID), true
	}
	var result any
	if err == nil {
		switch mcp.MCPMethod(env.Method) {
		case mcp.MethodTasksGet:
			result = taskJSON(p.TaskID, t)
		case mcp.MethodTasksCancel:
			if l, lost := s.taskIndex.lostTask(p.TaskID); lost {
				// MCP refuses to cancel a task in a terminal state with -32602.
				why := l.why()
				if l.endedBefore() {
					why = "it is " + l.last.Status
				}
				return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("tasks/cancel: task %s has already ended: %s", quoteTaskID(p.TaskID), why)), true
			}
			if terminal(t.Status) {
				// Refused here, not by the plugin: a server answers it with
				// the same -32602 as a task it does not know, which would
				// drop a task that is still there to read.
				return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("tasks/cancel: task %s has already ended: it is %s", quoteTaskID(p.TaskID), t.Status)), true
			}
			if t, err = tasks.Runner.CancelTask(ctx, h.Plugin, h.ID); err == nil {
				s.taskIndex.saw(p.TaskID, t)
			}
			result = taskJSON(p.TaskID, t)
		case mcp.MethodTasksResult:
			if l, lost := s.taskIndex.lostTask(p.TaskID); lost {
				return s.lostResult(env, p.TaskID, l), true
			}
			stop := s.forwardTaskInputs(ctx, se, p.TaskID, h.taskRef)
			result, err = s.taskResult(ctx, tasks.Runner, h.taskRef, p.TaskID)
			stop()
			if l, lost := s.taskIndex.lostTask(p.TaskID); err != nil && lost {
				// Its process ended while the result was awaited.
				return s.lostResult(env, p.TaskID, l), true
			}
		}
	}
	if err != nil {
		if errors.Is(err, protov1.ErrNotFound) {
			s.taskIndex.drop(p.TaskID)
		}
		return s.taskFailure(env, fmt.Sprintf("%s: task %q of plugin %q", env.Method, p.TaskID, h.Plugin), err), true
	}
	return s.taskAnswer(env, result), true
}

func (s *Server) startTask(ctx context.Context, se *session, env *envelope) rpcResponse {
	var tp struct {
		TTL *int64 `json:"ttl"`
	}
	if err := json.Unmarshal(env.params.Task, &tp); err != nil {
		return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("tools/call of %s: params.task must be an object like {\"ttl\": 60000}: %v", env.params.Name, err))
	}
	if tp.TTL != nil && *tp.TTL < 0 {
		return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("tools/call of %s: params.task.ttl must not be negative; got %d", env.params.Name, *tp.TTL))
	}
	caps := peerCapabilities(se.GetClientCapabilities())
	id, t, err := s.createTask(ctx, se, env.params.Arguments, tp.TTL, &caps)
	switch {
	case errors.Is(err, errTooManyTasks):
		return s.tooManyTasks(env)
	case err != nil:
		return s.taskFailure(env, fmt.Sprintf("tools/call of %s as a task", env.params.Name), err)
	}
	return s.taskAnswer(env, map[string]any{"task": taskJSON(id, t)})
}

// TaskStatus sends notifications/tasks/status of a plugin's task to the
// session that created it, under the id that session knows, and wakes the
// 2026-07-28 listens that follow it (tasklisten.go). A task of another
// process is polled instead.
func (s *Server) TaskStatus(plugin string, t protov1.Task) {
	ref := taskRef{Plugin: plugin, ID: t.ID}
	s.taskWatchers.changed(ref)
	id, entry, ok := s.taskIndex.find(ref)
	// A task whose creation time is not the one its id was issued for is
	// another task the plugin gave the same id: its owner is not told.
	if !ok || t.CreatedAt != "" && t.CreatedAt != entry.handle.Created {
		return
	}
	s.taskIndex.saw(id, t)
	if entry.session == "" {
		return
	}
	v, ok := s.sessions.Load(entry.session)
	if !ok {
		return
	}
	if se := v.(*session); se.owner == entry.owner {
		se.push(notification(mcp.MethodNotificationTasksStatus, taskJSON(id, t)))
	}
}

// listTasks answers with the caller's tasks this process created that
// their plugins still hold.
func (s *Server) listTasks(ctx context.Context, who Principal) map[string]any {
	out := []map[string]any{}
	for _, id := range s.taskIndex.of(who) {
		h, t, err := s.resolveTask(ctx, who, id)
		switch {
		case errors.Is(err, errUnknownTask):
			continue
		case errors.Is(err, protov1.ErrNotFound):
			s.taskIndex.drop(id)
			continue
		case err != nil:
			t = protov1.Task{Status: protov1.TaskFailed, StatusMessage: fmt.Sprintf("plugin %q cannot say: %v", h.Plugin, err)}
		}
		out = append(out, taskJSON(id, t))
	}
	return map[string]any{"tasks": out}
}

// taskAnswer is a task request's answer; on 2026-07-28 it carries
// resultType and the server's identity, as every result there does.
func (s *Server) taskAnswer(env *envelope, result any) rpcResponse {
	if env.modern() {
		server := mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version}
		switch r := result.(type) {
		case map[string]any:
			r["resultType"] = mcp.ResultTypeComplete
			r["_meta"] = map[string]any{mcp.MetaKeyServerInfo: server}
		case *mcp.CallToolResult:
			r.ResultType = mcp.ResultTypeComplete
			r.Meta.AdditionalFields[mcp.MetaKeyServerInfo] = server
		}
	}
	return rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: env.ID, Result: result}
}

// taskResult is the task's tool result, tied to the task as MCP asks.
func (s *Server) taskResult(ctx context.Context, r TaskRunner, ref taskRef, id string) (*mcp.CallToolResult, error) {
	res, err := r.TaskResult(ctx, ref.Plugin, ref.ID)
	if err != nil {
		return nil, err
	}
	out, err := toCallToolResult(res)
	if err != nil {
		out = errorResult(fmt.Sprintf("task %q of plugin %q returned a result that cannot be sent: %v", id, ref.Plugin, err))
	}
	if out.Meta == nil {
		out.Meta = &mcp.Meta{}
	}
	if out.Meta.AdditionalFields == nil {
		out.Meta.AdditionalFields = map[string]any{}
	}
	out.Meta.AdditionalFields[mcp.RelatedTaskMetaKey] = mcp.RelatedTaskMeta(id)
	return out, nil
}

func (s *Server) taskFailure(env *envelope, what string, err error) rpcResponse {
	var lost *resultLostError
	switch {
	case errors.As(err, &lost):
		// It names the task and its plugin itself; see lostResult for the code.
		return errorResponse(env.ID, codeInternalError, fmt.Sprintf("%s: %v", env.Method, err))
	case errors.Is(err, protov1.ErrNotFound):
		return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("%s: not found: %v", what, err))
	case errors.Is(err, protov1.ErrInvalidArgument), errors.Is(err, protov1.ErrNoTask):
		return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("%s: %v", what, err))
	}
	s.log.Warn("task request failed", "method", env.Method, "error", err)
	return errorResponse(env.ID, codeInternalError, fmt.Sprintf("%s: %v", what, err))
}

// taskJSON is t as MCP 2025-11-25 writes a task, under the id the client knows.
func taskJSON(id string, t protov1.Task) map[string]any {
	return taskFields(id, t, "ttl", "pollInterval")
}

// taskFields is t under the id the client knows, its time to live and poll
// interval under the names the protocol version gives them.
func taskFields(id string, t protov1.Task, ttl, pollInterval string) map[string]any {
	out := map[string]any{
		"taskId": id, "status": t.Status,
		"createdAt": t.CreatedAt, "lastUpdatedAt": t.LastUpdated,
		ttl: t.TTLMs,
	}
	if t.StatusMessage != "" {
		out["statusMessage"] = t.StatusMessage
	}
	if t.PollIntervalMs != nil {
		out[pollInterval] = *t.PollIntervalMs
	}
	return out
}
