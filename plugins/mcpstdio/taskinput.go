package mcpstdio

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A task's server may ask its client something while the task runs. An MCP
// server of 2025-11-25 holds such a request until its client calls
// tasks/result for the task, then sends it tagged with the task
// (io.modelcontextprotocol/related-task). So for a task whose client can be
// asked something, the plugin keeps a tasks/result open from creation to the
// end, and raises each tagged request to the host as a TaskInput event on
// Watch; the host's AnswerTaskInput carries the answer back, and the server
// gets it as the answer to its request.

var _ protov1.TaskInputAnswerer = (*Backend)(nil)

// maxTaskFollow bounds how long a task is followed when it has no ttl.
const maxTaskFollow = time.Hour

// taskAsks is what the plugin keeps of the tasks it follows.
type taskAsks struct {
	mu      sync.Mutex
	clients map[string]protov1.PeerCapabilities // by the server's task id
	waiting map[string]chan taskAnswer          // by task id + "\x00" + key
	seq     int64
}

type taskAnswer struct {
	result json.RawMessage
	err    *protov1.PeerError
}

// follow keeps a tasks/result open for the task id, whose client answers
// what caps say, until the task ends, its ttl passes or the session stops.
func (s *session) follow(id string, caps protov1.PeerCapabilities, ttlMs *int64) {
	a := &s.taskAsks
	a.mu.Lock()
	if a.clients == nil {
		a.clients, a.waiting = map[string]protov1.PeerCapabilities{}, map[string]chan taskAnswer{}
	}
	a.clients[id] = caps
	a.mu.Unlock()
	limit := maxTaskFollow
	if ttlMs != nil && *ttlMs > 0 {
		limit = time.Duration(*ttlMs) * time.Millisecond
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(s.ctx, limit)
		defer cancel()
		// The outcome itself is asked for again by the host; this request
		// only lets the server deliver what it asks meanwhile.
		if _, err := s.request(ctx, string(mcp.MethodTasksResult), map[string]any{"taskId": id}); err != nil && s.ctx.Err() == nil {
			s.log.Debug("task no longer followed", "task", id, "error", err)
		}
		a.mu.Lock()
		delete(a.clients, id)
		a.mu.Unlock()
	}()
}

// relatedTask is the task a server's request is tagged with, or "".
func relatedTask(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var rt struct {
		TaskID string `json:"taskId"`
	}
	if json.Unmarshal(p.Meta[mcp.RelatedTaskMetaKey], &rt) != nil {
		return ""
	}
	return rt.TaskID
}

// withoutRelatedTask drops the server's task tag: the host tags the request
// with the id its client knows.
func withoutRelatedTask(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil {
		return params
	}
	delete(meta, mcp.RelatedTaskMetaKey)
	if len(meta) == 0 {
		delete(p, "_meta")
	} else if b, err := json.Marshal(meta); err == nil {
		p["_meta"] = b
	}
	b, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return b
}

// askForTask raises the server's request req, tagged with task id, to the
// host, and answers the server with what the task's client says. ok is
// false when the plugin does not follow that task.
func (s *session) askForTask(req transport.JSONRPCRequest, id string, params json.RawMessage) (resp *transport.JSONRPCResponse, ok bool) {
	a := &s.taskAsks
	a.mu.Lock()
	caps, followed := a.clients[id]
	if !followed {
		a.mu.Unlock()
		return nil, false
	}
	if !caps.Supports(req.Method) {
		a.mu.Unlock()
		return errorResponse(req.ID, protov1.CodeNoPeer, fmt.Sprintf("%s: the client of task %q did not declare it answers this", req.Method, id)), true
	}
	a.seq++
	key := "in-" + strconv.FormatInt(a.seq, 10)
	ch := make(chan taskAnswer, 1)
	a.waiting[id+"\x00"+key] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.waiting, id+"\x00"+key)
		a.mu.Unlock()
	}()

	ctx, done := s.asked(s.ctx, req)
	defer done()

	s.emit(protov1.Event{Kind: protov1.EventTaskInput, TaskInput: &protov1.TaskInput{
		TaskID: id, Key: key, Method: req.Method, Params: withoutRelatedTask(params)}})
	select {
	case ans := <-ch:
		if ans.err != nil {
			return errorResponse(req.ID, ans.err.Code, ans.err.Message), true
		}
		return transport.NewJSONRPCResultResponse(req.ID, ans.result), true
	case <-ctx.Done():
		s.emit(protov1.Event{Kind: protov1.EventTaskInput, TaskInput: &protov1.TaskInput{TaskID: id, Key: key, Withdrawn: true}})
		return errorResponse(req.ID, mcp.REQUEST_INTERRUPTED, fmt.Sprintf("%s: cancelled before the client of task %q answered", req.Method, id)), true
	}
}

// AnswerTaskInput hands the server the client's answer to what its task
// asked under key.
func (b *Backend) AnswerTaskInput(_ context.Context, taskID, key string, result json.RawMessage, perr *protov1.PeerError) error {
	s, err := b.session()
	if err != nil {
		return err
	}
	a := &s.taskAsks
	a.mu.Lock()
	ch, ok := a.waiting[taskID+"\x00"+key]
	delete(a.waiting, taskID+"\x00"+key)
	a.mu.Unlock()
	if !ok {
		return protov1.NotFoundf("task %q asks nothing under %q (answered already, or withdrawn)", taskID, key)
	}
	if perr == nil && !isObject(result) {
		perr = &protov1.PeerError{Code: mcp.INVALID_PARAMS, Message: "the client's answer is not a JSON object"}
	}
	ch <- taskAnswer{result: result, err: perr}
	return nil
}
