package mcpstdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// The plugin passes MCP tasks on to its server: a tool call made as a task
// is sent as a task-augmented tools/call, and the task's state, outcome and
// cancellation are asked of the server by the id it chose. The server keeps
// the tasks; the plugin holds nothing.

var _ protov1.TaskRunner = (*Backend)(nil)

// wireTask is a task as MCP writes it.
type wireTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  *int64 `json:"pollInterval"`
}

func (w wireTask) task() protov1.Task {
	return protov1.Task{ID: w.TaskID, Status: w.Status, StatusMessage: w.StatusMessage,
		CreatedAt: w.CreatedAt, LastUpdated: w.LastUpdatedAt, TTLMs: w.TTL, PollIntervalMs: w.PollInterval}
}

// serverRunsTasks reports whether the server said it runs tools/call as
// tasks.
func serverRunsTasks(caps mcp.ServerCapabilities) bool {
	t := caps.Tasks
	return t != nil && t.Requests != nil && t.Requests.Tools != nil && t.Requests.Tools.Call != nil
}

// taskSession is the running session of a server that runs tasks.
func (b *Backend) taskSession() (*session, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	if !serverRunsTasks(s.info.Capabilities) {
		return nil, fmt.Errorf("the MCP server %q does not run tool calls as tasks (its capabilities have no tasks.requests.tools.call): %w", s.info.ServerInfo.Name, protov1.ErrNoTask)
	}
	return s, nil
}

func (b *Backend) CreateTask(ctx context.Context, req *protov1.CallRequest, ttlMs *int64) (protov1.Task, error) {
	s, err := b.taskSession()
	if err != nil {
		return protov1.Task{}, err
	}
	s.mu.Lock()
	runs := s.taskTools[req.Name]
	s.mu.Unlock()
	if !runs {
		return protov1.Task{}, fmt.Errorf("tool %q of the MCP server %q (its execution.taskSupport is not optional or required): %w", req.Name, s.info.ServerInfo.Name, protov1.ErrNoTask)
	}
	params := map[string]any{"name": req.Name, "task": map[string]any{}}
	if ttlMs != nil {
		params["task"] = map[string]any{"ttl": *ttlMs}
	}
	if args := present(req.Arguments); args != nil {
		if !isObject(args) {
			return protov1.Task{}, protov1.InvalidArgumentf("arguments of %q must be a JSON object", req.Name)
		}
		params["arguments"] = args
	}
	meta, err := callMeta(ctx, req)
	if err != nil {
		return protov1.Task{}, err
	}
	if len(meta) > 0 {
		params["_meta"] = meta
	}
	raw, err := s.request(ctx, string(mcp.MethodToolsCall), params)
	if err != nil {
		return protov1.Task{}, fmt.Errorf("run tool %q as a task: %w", req.Name, err)
	}
	var created struct {
		Task *wireTask `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		return protov1.Task{}, fmt.Errorf("run tool %q as a task: decode the server's answer: %w", req.Name, err)
	}
	if created.Task == nil || created.Task.TaskID == "" {
		return protov1.Task{}, protov1.InvalidArgumentf("tool %q does not run as a task: the server answered with a plain result; call it without \"task\"", req.Name)
	}
	t := created.Task.task()
	if c := req.TaskClient; c != nil && (c.Sampling || c.Elicitation || c.Roots) {
		s.follow(t.ID, *c, t.TTLMs)
	}
	return t, nil
}

func (b *Backend) GetTask(ctx context.Context, id string) (protov1.Task, error) {
	return b.taskRequest(ctx, string(mcp.MethodTasksGet), id)
}

func (b *Backend) CancelTask(ctx context.Context, id string) (protov1.Task, error) {
	return b.taskRequest(ctx, string(mcp.MethodTasksCancel), id)
}

func (b *Backend) taskRequest(ctx context.Context, method, id string) (protov1.Task, error) {
	s, err := b.taskSession()
	if err != nil {
		return protov1.Task{}, err
	}
	raw, err := s.request(ctx, method, map[string]any{"taskId": id})
	if err != nil {
		return protov1.Task{}, taskError(fmt.Sprintf("task %q", id), err)
	}
	var w wireTask
	if err := json.Unmarshal(raw, &w); err != nil {
		return protov1.Task{}, fmt.Errorf("%s of task %q: decode the server's answer: %w", method, id, err)
	}
	return w.task(), nil
}

func (b *Backend) TaskResult(ctx context.Context, id string) (*protov1.Result, error) {
	s, err := b.taskSession()
	if err != nil {
		return nil, err
	}
	raw, err := s.request(ctx, string(mcp.MethodTasksResult), map[string]any{"taskId": id})
	if err != nil {
		return nil, taskError(fmt.Sprintf("result of task %q", id), err)
	}
	res, err := resultFromWire(raw)
	if err != nil {
		return nil, fmt.Errorf("result of task %q: %w", id, err)
	}
	return res, nil
}

func (b *Backend) ListTasks(ctx context.Context) ([]protov1.Task, error) {
	s, err := b.taskSession()
	if err != nil {
		return nil, err
	}
	list, err := listAll[wireTask](ctx, s, string(mcp.MethodTasksList), "tasks")
	if err != nil {
		return nil, err
	}
	out := make([]protov1.Task, 0, len(list))
	for _, w := range list {
		out = append(out, w.task())
	}
	return out, nil
}

// taskError words the server's refusal of a task request. Servers built on
// the TypeScript SDK answer an unknown task id with invalid params: to the
// host that is a task not found.
func taskError(what string, err error) error {
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) && rpcErr.Code == mcp.INVALID_PARAMS {
		return protov1.NotFoundf("%s: the server says %s", what, rpcErr.Message)
	}
	return fmt.Errorf("%s: %w", what, err)
}
