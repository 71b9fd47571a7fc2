package mcpstdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// clientCapabilities is what the plugin declares to its server: everything a
// gateway client may answer. The server then offers the tools that need them
// (server-everything's trigger-sampling-request, say); whether the client of
// a given call can answer is only known during that call, and a client that
// cannot gets the server an error that says so. Roots have listChanged only
// when changes are passed on.
func clientCapabilities(forwardRootsChanged bool) mcp.ClientCapabilities {
	caps := mcp.ClientCapabilities{
		Sampling:    &mcp.SamplingCapability{Tools: &struct{}{}},
		Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}},
	}
	// Tasks the plugin runs for its host are listed and cancelled; it runs
	// no requests of the server's as tasks (requests stays empty).
	caps.Tasks = &mcp.TasksCapability{List: &struct{}{}, Cancel: &struct{}{}}
	caps.Roots = &struct {
		ListChanged bool `json:"listChanged,omitempty"`
	}{ListChanged: forwardRootsChanged}
	return caps
}

// onServerRequest answers a request the server sends its client: sampling,
// elicitation and roots go to the client of the call that caused them, ping is
// answered here. It runs on a goroutine of its own per request.
//
// Over stdio a server's request does not say which call it belongs to, so the
// call is found thus: the call whose progress token the request's _meta
// carries; else the only call in progress. With no call in progress, or
// several, no client is asked: guessing could ask one client on behalf of
// another, so the server gets an error that says why.
func (s *session) onServerRequest(_ context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	if req.Method == string(mcp.MethodPing) {
		return transport.NewJSONRPCResultResponse(req.ID, json.RawMessage(`{}`)), nil
	}
	params, err := json.Marshal(req.Params)
	if err != nil || req.Params == nil {
		params = nil
	}
	switch req.Method {
	case protov1.MethodCreateMessage, protov1.MethodElicit, protov1.MethodListRoots:
	default:
		return errorResponse(req.ID, mcp.METHOD_NOT_FOUND, fmt.Sprintf("toolgate does not serve %s to MCP servers", req.Method)), nil
	}
	if task := relatedTask(params); task != "" {
		if resp, ok := s.askForTask(req, task, params); ok {
			return resp, nil
		}
	}
	route, why := s.routeOf(params)
	if route == nil {
		s.log.Debug("server request with no client to ask", "method", req.Method, "why", why)
		return errorResponse(req.ID, protov1.CodeNoPeer, fmt.Sprintf("%s: no client to ask: %s", req.Method, why)), nil
	}
	ctx, done := s.asked(route.ctx, req)
	defer done()
	result, err := protov1.AskPeer(ctx, route.peer, req.Method, params)
	var pe *protov1.PeerError
	switch {
	case err == nil:
		return transport.NewJSONRPCResultResponse(req.ID, result), nil
	case errors.As(err, &pe):
		return errorResponse(req.ID, pe.Code, pe.Message), nil
	case route.ctx.Err() != nil:
		return errorResponse(req.ID, mcp.REQUEST_INTERRUPTED, fmt.Sprintf("%s: the call ended before its client answered", req.Method)), nil
	case ctx.Err() != nil:
		return errorResponse(req.ID, mcp.REQUEST_INTERRUPTED, fmt.Sprintf("%s: cancelled by the server", req.Method)), nil
	}
	return errorResponse(req.ID, mcp.INTERNAL_ERROR, fmt.Sprintf("%s: asking the client failed: %v", req.Method, err)), nil
}

// asked is the context of asking a client on behalf of the server's request
// req: the server's notifications/cancelled for req ends it (serverCancelled),
// and so does done, which forgets req.
func (s *session) asked(parent context.Context, req transport.JSONRPCRequest) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	key := req.ID.String()
	s.mu.Lock()
	s.asking[key] = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.asking, key)
		s.mu.Unlock()
		cancel()
	}
}

// serverCancelled stops asking a client on behalf of a request the server
// cancelled (it timed out, say), so the client's dialog or model call ends too.
func (s *session) serverCancelled(n mcp.JSONRPCNotification) {
	var c struct {
		RequestID mcp.RequestId `json:"requestId"`
	}
	if !s.decodeParams(n, &c) {
		return
	}
	s.mu.Lock()
	cancel := s.asking[c.RequestID.String()]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// routeOf finds the call a server request belongs to, or says why none.
func (s *session) routeOf(params json.RawMessage) (*callRoute, string) {
	var p struct {
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if token, ok := p.Meta.ProgressToken.(string); ok && token != "" {
		if r := s.routes[token]; r != nil {
			return r, ""
		}
	}
	switch len(s.running) {
	case 0:
		return nil, "no tool call is in progress"
	case 1:
		for r := range s.running {
			return r, ""
		}
	}
	return nil, fmt.Sprintf("%d tool calls are in progress and the request does not say which one it belongs to", len(s.running))
}

func errorResponse(id mcp.RequestId, code int, message string) *transport.JSONRPCResponse {
	return transport.NewJSONRPCErrorResponse(id, code, message, nil)
}

// rootsChanged tells the server its client's roots changed, when the config
// says to; it asks for them again (during a call, to reach the client making
// it). Otherwise nothing is sent: a server asks for roots at once, outside
// the call that needs them, and whichever call runs then would answer for
// every client.
func (s *session) rootsChanged(ctx context.Context) error {
	if !s.cfg.forwardRootsChanged {
		s.log.Debug("a client's roots changed; not passed on to the server (forward_roots_changed is off)")
		return nil
	}
	err := s.tr.SendNotification(ctx, mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: string(mcp.MethodNotificationRootsListChanged)},
	})
	if err != nil {
		return fmt.Errorf("send notifications/roots/list_changed: %w", err)
	}
	return nil
}
