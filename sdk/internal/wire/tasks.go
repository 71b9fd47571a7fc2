package wire

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolgate/toolgate/sdk/internal/pluginv1"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// MCP tasks cross the boundary as plain unary requests: a task outlives the
// request that made it, so nothing of a call's stream or its client goes
// with it.

var _ protov1.TaskRunner = (*Client)(nil)

func taskToPB(t protov1.Task) *pluginv1.Task {
	return &pluginv1.Task{
		TaskId: t.ID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdated,
		TtlMs: t.TTLMs, PollIntervalMs: t.PollIntervalMs,
	}
}

func taskFromPB(t *pluginv1.Task) protov1.Task {
	return protov1.Task{
		ID: t.GetTaskId(), Status: t.GetStatus(), StatusMessage: t.GetStatusMessage(),
		CreatedAt: t.GetCreatedAt(), LastUpdated: t.GetLastUpdatedAt(),
		TTLMs: t.TtlMs, PollIntervalMs: t.PollIntervalMs,
	}
}

// runsTasks reports whether the plugin declared tasks at a minor that has
// them, learning it from GetInfo once when the host has not asked yet.
func (c *Client) runsTasks(ctx context.Context) error {
	c.mu.Lock()
	known, tasks := c.infoKnown, c.tasks
	c.mu.Unlock()
	if !known {
		if _, err := c.GetInfo(ctx); err != nil {
			return err
		}
		c.mu.Lock()
		tasks = c.tasks
		c.mu.Unlock()
	}
	if !tasks {
		return fmt.Errorf("%w: the plugin does not run tasks", ErrUnsupported)
	}
	return nil
}

func (c *Client) CreateTask(ctx context.Context, req *protov1.CallRequest, ttlMs *int64) (protov1.Task, error) {
	if err := c.runsTasks(ctx); err != nil {
		return protov1.Task{}, err
	}
	call := &pluginv1.CallToolRequest{Name: req.Name, ArgumentsJson: req.Arguments, MetaJson: req.Meta}
	c.mu.Lock()
	taskInput := c.taskInput
	c.mu.Unlock()
	if req.TaskClient != nil && taskInput {
		call.ClientCapabilities = capsToPB(*req.TaskClient)
	}
	r, err := c.RPC.CreateTask(ctx, &pluginv1.CreateTaskRequest{Call: call, TtlMs: ttlMs})
	if err != nil {
		return protov1.Task{}, unsupported(err)
	}
	return taskFromPB(r.GetTask()), nil
}

func (c *Client) GetTask(ctx context.Context, id string) (protov1.Task, error) {
	if err := c.runsTasks(ctx); err != nil {
		return protov1.Task{}, err
	}
	r, err := c.RPC.GetTask(ctx, &pluginv1.TaskRequest{TaskId: id})
	if err != nil {
		return protov1.Task{}, unsupported(err)
	}
	return taskFromPB(r.GetTask()), nil
}

func (c *Client) TaskResult(ctx context.Context, id string) (*protov1.Result, error) {
	if err := c.runsTasks(ctx); err != nil {
		return nil, err
	}
	r, err := c.RPC.TaskResult(ctx, &pluginv1.TaskRequest{TaskId: id})
	if err != nil {
		return nil, unsupported(err)
	}
	return resultFromPB(r), nil
}

func (c *Client) ListTasks(ctx context.Context) ([]protov1.Task, error) {
	if err := c.runsTasks(ctx); err != nil {
		return nil, err
	}
	r, err := c.RPC.ListTasks(ctx, &pluginv1.ListTasksRequest{})
	if err != nil {
		return nil, unsupported(err)
	}
	out := make([]protov1.Task, 0, len(r.GetTasks()))
	for _, t := range r.GetTasks() {
		out = append(out, taskFromPB(t))
	}
	return out, nil
}

func (c *Client) CancelTask(ctx context.Context, id string) (protov1.Task, error) {
	if err := c.runsTasks(ctx); err != nil {
		return protov1.Task{}, err
	}
	r, err := c.RPC.CancelTask(ctx, &pluginv1.TaskRequest{TaskId: id})
	if err != nil {
		return protov1.Task{}, unsupported(err)
	}
	return taskFromPB(r.GetTask()), nil
}

// taskRunner is the backend's TaskRunner, or an Unimplemented status that
// names what the plugin lacks.
func (s *Server) taskRunner() (protov1.TaskRunner, error) {
	if tr, ok := s.Backend.(protov1.TaskRunner); ok {
		return tr, nil
	}
	return nil, status.Error(codes.Unimplemented, "this plugin does not run tasks")
}

func (s *Server) CreateTask(ctx context.Context, req *pluginv1.CreateTaskRequest) (resp *pluginv1.TaskResponse, err error) {
	defer s.guard("CreateTask", &err)
	tr, err := s.taskRunner()
	if err != nil {
		return nil, err
	}
	call := req.GetCall()
	creq := &protov1.CallRequest{Name: call.GetName(), Arguments: raw(call.GetArgumentsJson()), Meta: raw(call.GetMetaJson())}
	if caps := call.GetClientCapabilities(); caps != nil {
		c := capsFromPB(caps)
		creq.TaskClient = &c
	}
	t, err := tr.CreateTask(ctx, creq, req.TtlMs)
	if err != nil {
		return nil, statusOf(err)
	}
	return &pluginv1.TaskResponse{Task: taskToPB(t)}, nil
}

func (s *Server) GetTask(ctx context.Context, req *pluginv1.TaskRequest) (resp *pluginv1.TaskResponse, err error) {
	defer s.guard("GetTask", &err)
	tr, err := s.taskRunner()
	if err != nil {
		return nil, err
	}
	t, err := tr.GetTask(ctx, req.GetTaskId())
	if err != nil {
		return nil, statusOf(err)
	}
	return &pluginv1.TaskResponse{Task: taskToPB(t)}, nil
}

func (s *Server) TaskResult(ctx context.Context, req *pluginv1.TaskRequest) (resp *pluginv1.CallToolResult, err error) {
	defer s.guard("TaskResult", &err)
	tr, err := s.taskRunner()
	if err != nil {
		return nil, err
	}
	res, err := tr.TaskResult(ctx, req.GetTaskId())
	if err != nil {
		return nil, statusOf(err)
	}
	return resultToPB(res), nil
}

func (s *Server) ListTasks(ctx context.Context, _ *pluginv1.ListTasksRequest) (resp *pluginv1.ListTasksResponse, err error) {
	defer s.guard("ListTasks", &err)
	tr, err := s.taskRunner()
	if err != nil {
		return nil, err
	}
	tasks, err := tr.ListTasks(ctx)
	if err != nil {
		return nil, statusOf(err)
	}
	resp = &pluginv1.ListTasksResponse{}
	for _, t := range tasks {
		resp.Tasks = append(resp.Tasks, taskToPB(t))
	}
	return resp, nil
}

func (s *Server) CancelTask(ctx context.Context, req *pluginv1.TaskRequest) (resp *pluginv1.TaskResponse, err error) {
	defer s.guard("CancelTask", &err)
	tr, err := s.taskRunner()
	if err != nil {
		return nil, err
	}
	t, err := tr.CancelTask(ctx, req.GetTaskId())
	if err != nil {
		return nil, statusOf(err)
	}
	return &pluginv1.TaskResponse{Task: taskToPB(t)}, nil
}

// AnswerTaskInput hands the plugin its task's client's answer to key.
func (c *Client) AnswerTaskInput(ctx context.Context, taskID, key string, result json.RawMessage, perr *protov1.PeerError) error {
	c.mu.Lock()
	known, taskInput := c.infoKnown, c.taskInput
	c.mu.Unlock()
	if !known || !taskInput {
		return fmt.Errorf("%w: the plugin raises no task input", ErrUnsupported)
	}
	req := &pluginv1.AnswerTaskInputRequest{TaskId: taskID, Key: key, ResultJson: result}
	if perr != nil {
		req.ResultJson, req.ErrorCode, req.ErrorMessage = nil, int32(perr.Code), perr.Message
	}
	if _, err := c.RPC.AnswerTaskInput(ctx, req); err != nil {
		return unsupported(err)
	}
	return nil
}

func (s *Server) AnswerTaskInput(ctx context.Context, req *pluginv1.AnswerTaskInputRequest) (resp *pluginv1.AnswerTaskInputResponse, err error) {
	defer s.guard("AnswerTaskInput", &err)
	a, ok := s.Backend.(protov1.TaskInputAnswerer)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this plugin raises no task input")
	}
	var perr *protov1.PeerError
	if req.GetErrorCode() != 0 {
		perr = &protov1.PeerError{Code: int(req.GetErrorCode()), Message: req.GetErrorMessage()}
	}
	if err := a.AnswerTaskInput(ctx, req.GetTaskId(), req.GetKey(), raw(req.GetResultJson()), perr); err != nil {
		return nil, statusOf(err)
	}
	return &pluginv1.AnswerTaskInputResponse{}, nil
}
