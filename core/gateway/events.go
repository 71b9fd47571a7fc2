package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// stream carries messages that belong to one request back to the client that
// sent it, ahead of the response: the POST's event stream over HTTP, the shared
// output over stdio.
type stream interface {
	send(msg any) error
}

// requestScope is what a transport knows about one request, passed to the
// handlers through the context mcp-go hands them.
type requestScope struct {
	// ctx is the transport's context for the request; the handler's context is
	// derived from it by mcp-go, which also cancels it on notifications/cancelled.
	ctx    context.Context
	stream stream
	// progressToken is _meta.progressToken exactly as the client wrote it.
	progressToken json.RawMessage
	// cancelled is set when the client cancelled the call: its answer is not sent.
	cancelled atomic.Bool
	// stop, when closed, ends a subscriptions/listen (the HTTP front shutting down).
	stop <-chan struct{}
	// answers are what a 2026-07-28 client answered to earlier input-required
	// results of this call (set by resume); inputRequests what the call asks
	// now (set by inputRequired).
	answers       map[string]json.RawMessage
	inputRequests map[string]json.RawMessage
}

type requestKey struct{}

func withRequest(ctx context.Context, rs *requestScope) context.Context {
	return context.WithValue(ctx, requestKey{}, rs)
}

func requestFrom(ctx context.Context) *requestScope {
	rs, _ := ctx.Value(requestKey{}).(*requestScope)
	return rs
}

func (s *Server) toolHandler(t *Tool) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rs := requestFrom(ctx)
		ev := &callEvents{srv: s, tool: t.Name}
		if rs != nil {
			ev.stream = rs.stream
			ev.token = rs.progressToken
		}
		se, _ := server.ClientSessionFromContext(ctx).(*session)
		if se != nil {
			ev.session = se
			ctx = withCaller(ctx, Caller{Principal: se.owner, Session: se.callerSession()})
		}
		args := req.Params.RawArguments
		if !present(args) {
			args = json.RawMessage(`{}`)
		}
		ctx = traceFromMeta(ctx, req.Params.Meta)

		call, stop := context.WithCancelCause(ctx)
		defer stop(nil)
		peer := s.newPeer(call, se, rs, ev, stop)
		res, err := s.runTool(protov1.WithPeer(call, peer), t, args, ev)
		// From here on nothing the handler reports reaches the client: the
		// result is about to be written and must be the last word.
		ev.close()
		if rs != nil && ctx.Err() != nil && rs.ctx.Err() == nil {
			rs.cancelled.Store(true)
		}
		if ip, ok := peer.(*inputPeer); ok && ctx.Err() == nil {
			if r := s.inputRequired(rs, t.Name, args, se.owner, ip); r != nil {
				return r, nil
			}
		}

		if errors.Is(context.Cause(ctx), errShuttingDown) {
			return errorResult(fmt.Sprintf("the call to %s was stopped: the gateway is shutting down and the call outlasted the shutdown grace period; retry it once the gateway is back", calledName(t.Name, args))), nil
		}
		if err != nil {
			return errorResult(err.Error()), nil
		}
		if res == nil {
			return errorResult(fmt.Sprintf("tool %q returned no result", t.Name)), nil
		}
		out, err := toCallToolResult(res)
		if err != nil {
			s.log.Error("tool result cannot be sent", "tool", t.Name, "error", err)
			return errorResult(fmt.Sprintf("tool %q returned a result that cannot be sent: %v", t.Name, err)), nil
		}
		return out, nil
	}
}

// runTool calls the handler; a panic becomes an error so the client always
// gets an answer.
func (s *Server) runTool(ctx context.Context, t *Tool, args json.RawMessage, ev *callEvents) (res *protov1.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("tool handler panicked", "tool", t.Name, "panic", r, "stack", string(debug.Stack()))
			res, err = nil, fmt.Errorf("tool %q failed with an internal error: %v", t.Name, r)
		}
	}()
	return t.Handle(ctx, args, ev)
}

func (s *Server) resourceHandler(r *Resource) server.ResourceHandlerFunc {
	return func(ctx context.Context, _ mcp.ReadResourceRequest) (out []mcp.ResourceContents, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("resource reader panicked", "uri", r.Def.URI, "panic", p, "stack", string(debug.Stack()))
				out, err = nil, fmt.Errorf("read %s: internal error: %v", r.Def.URI, p)
			}
		}()
		list, err := r.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", r.Def.URI, err)
		}
		out, err = toMCPResourceContents(list)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", r.Def.URI, err)
		}
		return out, nil
	}
}

// callEvents forwards what a running tool reports to the stream of the request
// that called it. The mutex is held while sending, so close waits for a send
// in flight and nothing is written after it returns.
type callEvents struct {
	srv     *Server
	tool    string
	stream  stream
	token   json.RawMessage
	session *session

	mu     sync.Mutex
	closed bool
}

var _ protov1.CallEvents = (*callEvents)(nil)

// WantsProgress: only a client that sent a progress token can be told of
// progress, so without one the plugin is not asked for it.
func (e *callEvents) WantsProgress() bool { return len(e.token) > 0 }

func (e *callEvents) Progress(p protov1.Progress) {
	if len(e.token) == 0 {
		return
	}
	params := map[string]any{"progressToken": e.token, "progress": p.Progress}
	if p.Total > 0 {
		params["total"] = p.Total
	}
	if p.Message != "" {
		params["message"] = p.Message
	}
	e.send(rpcNotification{JSONRPC: mcp.JSONRPC_VERSION, Method: string(mcp.MethodNotificationProgress), Params: params})
}

func (e *callEvents) Log(m protov1.LogMessage) {
	level := mcp.LoggingLevel(m.Level)
	if !validLevel(level) {
		level = mcp.LoggingLevelInfo
	}
	if e.session != nil && (e.session.perRequest && !e.session.levelSet.Load() || !level.ShouldSendTo(e.session.GetLogLevel())) {
		// A 2026-07-28 request that named no log level asked for none.
		return
	}
	data := m.Data
	if !present(data) || !json.Valid(data) {
		data = json.RawMessage("null")
	}
	params := map[string]any{"level": level, "data": data}
	setIf(params, "logger", m.Logger)
	e.send(rpcNotification{JSONRPC: mcp.JSONRPC_VERSION, Method: string(mcp.MethodNotificationMessage), Params: params})
}

func (e *callEvents) send(n rpcNotification) {
	if err := e.deliver(n); err != nil {
		e.srv.log.Debug("call event not delivered", "tool", e.tool, "method", n.Method, "error", err)
	}
}

// deliver writes msg on the call's stream unless the call has been answered.
func (e *callEvents) deliver(msg any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || e.stream == nil {
		return errStreamDone
	}
	return e.stream.send(msg)
}

func (e *callEvents) close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
}

// calledName names what a call ran: the tool a meta-tool was asked to run
// (call_tool's "name") when its arguments name one, else the tool itself.
func calledName(tool string, args json.RawMessage) string {
	var in struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(args, &in) == nil && in.Name != "" {
		return strconv.Quote(clip.Name(in.Name))
	}
	return strconv.Quote(tool)
}

// traceFromMeta continues the W3C trace a client put in the call's _meta
// (traceparent and tracestate, MCP's place for trace context), as the
// traceparent header does over HTTP, so a client on stdio can be traced
// too. A trace the request already carries (the header) is kept.
func traceFromMeta(ctx context.Context, meta *mcp.Meta) context.Context {
	if meta == nil || len(meta.AdditionalFields) == 0 {
		return ctx
	}
	parent, _ := meta.AdditionalFields["traceparent"].(string)
	if parent == "" || trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	carrier := propagation.MapCarrier{"traceparent": parent}
	if state, ok := meta.AdditionalFields["tracestate"].(string); ok {
		carrier["tracestate"] = state
	}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}
