package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// On 2026-07-28 tasks are the io.modelcontextprotocol/tasks extension: a
// client that declares it in a request's capabilities may be answered with
// a task (resultType "task", the task's fields flat in the result) when the
// tool runs as one; it follows the task with tasks/get (the state, the
// backend's pending requests while input_required, the result or error once
// terminal), answers those requests with tasks/update, and ends the task
// with tasks/cancel. tasks/result and tasks/list do not exist there. The
// task ids, their signatures and the principal checks are those of
// 2025-11-25 (taskids.go).

// TasksExtension names the MCP tasks extension.
const TasksExtension = "io.modelcontextprotocol/tasks"

// methodTasksUpdate answers a task's pending requests (the extension's own
// method; mcp-go does not name it).
const methodTasksUpdate mcp.MCPMethod = "tasks/update"

// declaresTasks reports whether a 2026-07-28 request declares the tasks
// extension in its _meta client capabilities.
func declaresTasks(env *envelope) bool {
	if !bytes.Contains(env.Params, []byte(TasksExtension)) {
		return false
	}
	var p struct {
		Meta struct {
			Caps mcp.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	if json.Unmarshal(env.Params, &p) != nil {
		return false
	}
	_, ok := p.Meta.Caps.Extensions[TasksExtension]
	return ok
}

// requestPeerCaps is what a 2026-07-28 request's client declared it answers.
func requestPeerCaps(env *envelope) protov1.PeerCapabilities {
	var p struct {
		Meta struct {
			Caps mcp.ClientCapabilities `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(env.Params, &p)
	return peerCapabilities(p.Meta.Caps)
}

// missingTasksExtension is the error the extension prescribes for a client
// that uses it without declaring it.
func missingTasksExtension(env *envelope) rpcResponse {
	return rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: env.ID, Error: &rpcError{
		Code:    mcp.MISSING_REQUIRED_CLIENT_CAPABILITY,
		Message: fmt.Sprintf("%s: missing required client capability: declare the %s extension in _meta %s", env.Method, TasksExtension, "io.modelcontextprotocol/clientCapabilities"),
		Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}},
	}}
}

// serveTaskExt answers the task requests of 2026-07-28; ok is false for a
// request served elsewhere (a tools/call that does not run as a task).
func (s *Server) serveTaskExt(ctx context.Context, se *session, env *envelope) (resp rpcResponse, ok bool) {
	switch mcp.MCPMethod(env.Method) {
	case mcp.MethodToolsCall:
		if env.params.Name != s.opts.Tasks.Tool || env.params.RequestState != "" || !declaresTasks(env) {
			return rpcResponse{}, false
		}
		return s.startExtTask(ctx, se, env)
	case mcp.MethodTasksList, mcp.MethodTasksResult:
		return errorResponse(env.ID, mcp.METHOD_NOT_FOUND, fmt.Sprintf("%s is not part of protocol %s: follow a task with tasks/get, which carries its result once it is done", env.Method, env.params.Meta.ProtocolVersion)), true
	case mcp.MethodSubscriptionsListen:
		return s.listenTasks(ctx, se, env)
	case mcp.MethodTasksGet, methodTasksUpdate, mcp.MethodTasksCancel:
	default:
		return rpcResponse{}, false
	}
	if !declaresTasks(env) {
		return missingTasksExtension(env), true
	}
	var p struct {
		TaskID         string                     `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	}
	if err := json.Unmarshal(env.Params, &p); err != nil || p.TaskID == "" {
		return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("%s: params.taskId is required (the taskId of a task result)", env.Method)), true
	}
	h, t, err := s.resolveTask(ctx, se.owner, p.TaskID)
	if errors.Is(err, errUnknownTask) {
		return unknownTask(env, p.TaskID), true
	}
	runner := s.opts.Tasks.Runner
	var result map[string]any
	if err == nil {
		switch mcp.MCPMethod(env.Method) {
		case mcp.MethodTasksGet:
			result, err = s.detailedTask(ctx, h.taskRef, p.TaskID, t)
		case methodTasksUpdate:
			if p.InputResponses == nil {
				return errorResponse(env.ID, codeInvalidParams, "tasks/update: params.inputResponses is required (answers keyed like the task's inputRequests)"), true
			}
			// An ended task asks nothing; the requests pending under its
			// plugin's id after its process ended are another task's.
			if !terminal(t.Status) {
				s.taskInputs.answer(ctx, runner, h.taskRef, p.InputResponses, s.log.Warn)
				s.taskWatchers.changed(h.taskRef)
			}
			result = map[string]any{}
		case mcp.MethodTasksCancel:
			// A task that has already ended is acknowledged: cancelling is
			// cooperative, and it simply ended otherwise. One its plugin's
			// process took is not asked for (tasklost.go).
			if terminal(t.Status) {
				result = map[string]any{}
				break
			}
			var cancelled protov1.Task
			if cancelled, err = runner.CancelTask(ctx, h.Plugin, h.ID); err == nil {
				s.taskIndex.saw(p.TaskID, cancelled)
			} else if now, gerr := s.currentTask(ctx, p.TaskID, h); gerr == nil && terminal(now.Status) {
				err = nil
			}
			result = map[string]any{}
		}
	}
	if err != nil {
		if errors.Is(err, protov1.ErrNotFound) {
			s.taskIndex.drop(p.TaskID)
			s.taskInputs.forget(h.taskRef)
		}
		return s.taskFailure(env, fmt.Sprintf("%s: task %q of plugin %q", env.Method, p.TaskID, h.Plugin), err), true
	}
	return s.taskAnswer(env, result), true
}

// startExtTask runs a call_tool as a task for a client of the extension;
// a tool that does not run as one is called as usual (ok false).
func (s *Server) startExtTask(ctx context.Context, se *session, env *envelope) (rpcResponse, bool) {
	caps := requestPeerCaps(env)
	id, t, err := s.createTask(ctx, se, env.params.Arguments, nil, &caps)
	switch {
	case errors.Is(err, errTooManyTasks):
		return s.tooManyTasks(env), true
	case errors.Is(err, protov1.ErrNoTask), errors.Is(err, protov1.ErrInvalidArgument):
		// The ordinary call answers, and words a bad call as it always does.
		return rpcResponse{}, false
	case err != nil:
		return s.taskFailure(env, fmt.Sprintf("tools/call of %s as a task", env.params.Name), err), true
	}
	out := extTaskJSON(id, t)
	out["resultType"] = "task"
	out["_meta"] = map[string]any{mcp.MetaKeyServerInfo: mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version}}
	return rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: env.ID, Result: out}, true
}

// detailedTask is task t as tasks/get of the extension writes it: with the
// backend's pending requests while it waits for them, its result once
// completed, its error once failed.
func (s *Server) detailedTask(ctx context.Context, ref taskRef, id string, t protov1.Task) (map[string]any, error) {
	runner := s.opts.Tasks.Runner
	if asked := s.taskInputs.pending(ref); len(asked) > 0 && !terminal(t.Status) {
		t.Status = protov1.TaskInputRequired
		out := extTaskJSON(id, t)
		out["inputRequests"] = asked
		return out, nil
	}
	if t.Status == protov1.TaskInputRequired {
		// The backend waits, but nothing it asked has reached the gateway
		// yet: to the client it is still at work.
		t.Status = protov1.TaskWorking
	}
	out := extTaskJSON(id, t)
	// A task its plugin's process took is not asked about: the new process
	// may have given its id to another (tasklost.go).
	l, lost := s.taskIndex.lostTask(id)
	switch t.Status {
	case protov1.TaskCompleted:
		if lost {
			// A completed task carries its result, which is gone; it stays
			// completed all the same, as MCP keeps a terminal state.
			return nil, l.resultLost(id)
		}
		res, err := s.taskResult(ctx, runner, ref, id)
		if err != nil {
			if errors.Is(err, protov1.ErrNotFound) {
				return nil, err
			}
			out["status"] = protov1.TaskFailed
			out["error"] = map[string]any{"code": codeInternalError, "message": fmt.Sprintf("the result of task %q of plugin %q cannot be read: %v", id, ref.Plugin, err)}
			break
		}
		// A 2026-07-28 CallToolResult, which names its resultType; the task
		// it belongs to is the one asked about, not tagged as on 2025-11-25.
		res.ResultType = mcp.ResultTypeComplete
		delete(res.Meta.AdditionalFields, mcp.RelatedTaskMetaKey)
		out["result"] = res
	case protov1.TaskFailed:
		msg := t.StatusMessage
		if msg == "" {
			msg = "the task failed"
		}
		out["error"] = map[string]any{"code": codeInternalError, "message": msg}
	}
	if terminal(t.Status) && !lost {
		s.taskInputs.forget(ref)
	}
	return out, nil
}

func terminal(status string) bool {
	return status == protov1.TaskCompleted || status == protov1.TaskFailed || status == protov1.TaskCancelled
}

// extTaskJSON is t as the extension writes a task, under the id the client
// knows: its durations are named in milliseconds.
func extTaskJSON(id string, t protov1.Task) map[string]any {
	return taskFields(id, t, "ttlMs", "pollIntervalMs")
}

// dropTaskParam returns a 2026-07-28 tools/call without the 2025-11-25 task
// param: the extension says a server must ignore it, as an unknown field,
// rather than take it as an opt-in, and mcp-go would otherwise run the call
// as a task of its own that no request here could follow.
func dropTaskParam(msg json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, err
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(m["params"], &params); err != nil {
		return nil, err
	}
	delete(params, "task")
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	m["params"] = b
	return json.Marshal(m)
}
