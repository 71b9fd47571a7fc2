package protov1

import (
	"context"
	"encoding/json"
	"errors"
)

// MinorTasks is the first minor whose plugins run tool calls as MCP tasks;
// the host asks an older plugin for none, whatever its capabilities claim.
const MinorTasks = 4

// Task is the state of a tool call run as an MCP task. ID is the plugin's
// own; the host namespaces it before a client sees it.
type Task struct {
	ID            string
	Status        string // TaskWorking, TaskInputRequired, TaskCompleted, TaskFailed or TaskCancelled
	StatusMessage string
	CreatedAt     string // RFC 3339
	LastUpdated   string // RFC 3339
	// TTLMs is how long the task is kept after it was created; nil = no limit.
	TTLMs *int64
	// PollIntervalMs suggests how often to ask for the state; nil = not said.
	PollIntervalMs *int64
}

// The states of a task, as MCP spells them.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskRunner is implemented by a Backend that runs tool calls as MCP tasks
// (Capabilities.Tasks): a long call answers at once with a task, and its
// client asks for the state and the outcome later, by id, from any request.
// An unknown id is an ErrNotFound error.
type TaskRunner interface {
	// CreateTask starts req as a task; ttlMs is the time the caller asks the
	// task to be kept (nil: the backend's choice). req.Peer is nil: a task
	// outlives the request that made it; req.TaskClient says what its
	// client answers (see TaskInputAnswerer).
	CreateTask(ctx context.Context, req *CallRequest, ttlMs *int64) (Task, error)
	GetTask(ctx context.Context, id string) (Task, error)
	// TaskResult waits for the task to end and answers its tool result.
	TaskResult(ctx context.Context, id string) (*Result, error)
	ListTasks(ctx context.Context) ([]Task, error)
	CancelTask(ctx context.Context, id string) (Task, error)
}

// MinorTaskInput is the first minor whose plugins raise their tasks'
// requests to the client (TaskInputAnswerer).
const MinorTaskInput = 5

// ErrNoTask marks a tool call a backend does not run as a task (the tool
// does not support it): the caller runs it as an ordinary call instead.
var ErrNoTask = errors.New("the tool does not run as a task")

// TaskInput is a request a task's backend sends its client while the task
// runs (sampling/createMessage, elicitation/create, roots/list). Key names
// it uniquely over the task's life; the answer comes back by it.
type TaskInput struct {
	TaskID string
	Key    string
	Method string
	Params json.RawMessage
	// Withdrawn: the backend no longer waits for an answer to Key.
	Withdrawn bool
}

// TaskInputAnswerer is a TaskRunner whose tasks may ask their client
// something while they run (Capabilities.TaskInput). It raises each request
// as an EventTaskInput on Watch, for a client whose CreateTask request's
// TaskClient said it answers that method, and takes the answer here. An
// answer to a key not pending is ErrNotFound.
type TaskInputAnswerer interface {
	// AnswerTaskInput hands the backend the client's answer to key: its
	// result, or err (a *PeerError carries the client's JSON-RPC error).
	AnswerTaskInput(ctx context.Context, taskID, key string, result json.RawMessage, err *PeerError) error
}
