package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// callTool runs one tool call. With req.WantProgress it sends a progress
// token of its own and routes the server's progress for that token to
// events, in the order the server sent it and before the result.
func (s *session) callTool(ctx context.Context, req *protov1.CallRequest, events protov1.CallEvents) (*protov1.Result, error) {
	params := map[string]any{"name": req.Name}
	if args := present(req.Arguments); args != nil {
		if !isObject(args) {
			return nil, protov1.InvalidArgumentf("arguments of %q must be a JSON object", req.Name)
		}
		params["arguments"] = args
	}
	meta, err := callMeta(ctx, req)
	if err != nil {
		return nil, err
	}
	token := ""
	if req.WantProgress {
		// Our own token, whatever the caller's _meta held: progress is routed
		// by it, and the host maps it back to its client's token.
		token = "toolgate-progress-" + strconv.FormatInt(s.ids.Add(1), 10)
		meta["progressToken"], _ = json.Marshal(token)
	}
	if len(meta) > 0 {
		params["_meta"] = meta
	}

	route := startRoute(ctx, token, events, req.Peer)
	s.mu.Lock()
	if token != "" {
		s.routes[token] = route
	}
	s.running[route] = struct{}{}
	s.mu.Unlock()

	raw, err := s.request(ctx, string(mcp.MethodToolsCall), params)

	s.mu.Lock()
	delete(s.routes, token)
	delete(s.running, route)
	s.mu.Unlock()
	route.finish(ctx.Err() == nil)

	var rpcErr *RPCError
	switch {
	case errors.As(err, &rpcErr):
		// The server's own answer to a call it refused (unknown tool, bad
		// arguments), shown to the model like any failed tool.
		return &protov1.Result{IsError: true, Content: []protov1.Content{{Kind: protov1.KindText,
			Text: fmt.Sprintf("MCP error %d: %s", rpcErr.Code, rpcErr.Message)}}}, nil
	case err != nil:
		return nil, err
	}
	res, err := resultFromWire(raw)
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", req.Name, err)
	}
	return res, nil
}

func (s *session) readResource(ctx context.Context, uri string) ([]protov1.ResourceContents, error) {
	raw, err := s.request(ctx, string(mcp.MethodResourcesRead), map[string]any{"uri": uri})
	if err != nil {
		return nil, err
	}
	var w struct {
		Contents []wireResourceContents `json:"contents"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("resources/read %s: decode: %w", uri, err)
	}
	out := make([]protov1.ResourceContents, 0, len(w.Contents))
	for _, wc := range w.Contents {
		c, err := contentsFromWire(wc)
		if err != nil {
			return nil, fmt.Errorf("resources/read %s: %w", uri, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func (s *session) getPrompt(ctx context.Context, name string, args map[string]string) (*protov1.PromptResult, error) {
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	raw, err := s.request(ctx, string(mcp.MethodPromptsGet), params)
	if err != nil {
		return nil, err
	}
	res, err := promptResultFromWire(raw)
	if err != nil {
		return nil, fmt.Errorf("prompt %q: %w", name, err)
	}
	return res, nil
}

// onNotification runs on the transport's reader goroutine for every
// notification the server sends; it only queues work, never waits.
func (s *session) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		var p struct {
			Token    any     `json:"progressToken"`
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		}
		if !s.decodeParams(n, &p) {
			return
		}
		token, _ := p.Token.(string)
		report := protov1.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message}
		s.mu.Lock()
		route := s.routes[token]
		if route != nil {
			route.push(func(ev protov1.CallEvents) { ev.Progress(report) })
		}
		s.mu.Unlock()
		if route == nil {
			// Servers go on reporting on calls already cancelled.
			s.log.Trace("progress for no running call", "token", p.Token)
		}
	case string(mcp.MethodNotificationMessage):
		var l struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger"`
			Data   json.RawMessage `json:"data"`
		}
		if !s.decodeParams(n, &l) {
			return
		}
		s.forwardLog(protov1.LogMessage{Level: l.Level, Logger: l.Logger, Data: present(l.Data)})
	case string(mcp.MethodNotificationCancelled):
		s.serverCancelled(n)
	case mcp.MethodNotificationToolsListChanged:
		s.markDirty(listTools)
	case mcp.MethodNotificationResourcesListChanged:
		s.markDirty(listResources | listTemplates)
	case mcp.MethodNotificationPromptsListChanged:
		s.markDirty(listPrompts)
	case mcp.MethodNotificationResourceUpdated:
		var u struct {
			URI string `json:"uri"`
		}
		if s.decodeParams(n, &u) {
			s.emit(protov1.Event{Kind: protov1.EventResourceUpdated, URI: u.URI})
		}
	case mcp.MethodNotificationTasksStatus:
		var w wireTask
		if s.decodeParams(n, &w) && w.TaskID != "" {
			t := w.task()
			s.emit(protov1.Event{Kind: protov1.EventTaskStatus, Task: &t})
		}
	default:
		s.log.Debug("mcp notification ignored", "method", n.Method)
	}
}

// forwardLog delivers a server log message once. Over stdio a server cannot
// say which request a message belongs to: while exactly one call runs, it is
// that call's and goes to its caller; otherwise it goes to the Watch streams.
// Copying it to every running call multiplied each line by the number of
// calls in flight and put other clients' logs in each caller's stream.
func (s *session) forwardLog(msg protov1.LogMessage) {
	s.mu.Lock()
	var only *callRoute
	if len(s.running) == 1 {
		for r := range s.running {
			only = r
		}
		only.push(func(ev protov1.CallEvents) { ev.Log(msg) })
	}
	s.mu.Unlock()
	if only == nil {
		s.emit(protov1.Event{Kind: protov1.EventLog, Log: &msg})
	}
}

func (s *session) decodeParams(n mcp.JSONRPCNotification, v any) bool {
	raw, err := json.Marshal(n.Params)
	if err == nil {
		err = json.Unmarshal(raw, v)
	}
	if err != nil {
		s.log.Warn("malformed notification from mcp server", "method", n.Method, "error", err)
		return false
	}
	return true
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}
