package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/toolgate/toolgate/internal/clip"
)

// JSON-RPC error codes this package answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// errServerClosed refuses new sessions once Close has run.
var errServerClosed = errors.New("gateway is shutting down")

// rpcResponse is a response this package writes itself, with the id copied
// byte for byte from the request.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcNotification is a notification of one request this package writes
// itself, so the progress token and log data go out as the client and the
// backend wrote them.
type rpcNotification struct {
	JSONRPC string         `json:"jsonrpc"`
	Method  string         `json:"method"`
	Params  map[string]any `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func errorResponse(id json.RawMessage, code int, message string) rpcResponse {
	if !present(id) {
		id = json.RawMessage("null")
	}
	return rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: &rpcError{Code: code, Message: message}}
}

// parseErrorResponse answers a message parseEnvelope refused.
func parseErrorResponse(err error) rpcResponse {
	if errors.Is(err, errBatch) {
		return errorResponse(nil, codeInvalidRequest, err.Error())
	}
	var invalid *invalidRequestError
	if errors.As(err, &invalid) && invalid.Params {
		return errorResponse(invalid.ID, codeInvalidParams, invalid.Error())
	}
	if errors.As(err, &invalid) {
		return errorResponse(invalid.ID, codeInvalidRequest, invalid.Error())
	}
	return errorResponse(nil, codeParseError, fmt.Sprintf("parse error: %v", err))
}

// dispatch serves one parsed message and returns what to send back: nil for
// notifications and responses. se is the session the message came on; nil
// for a 2026-07-28 request over HTTP, which gets a session of its own here,
// as it does over stdio.
func (s *Server) dispatch(ctx context.Context, se *session, msg []byte, env *envelope, rs *requestScope) (resp any) {
	if env.isRequest() && env.modern() {
		if r := s.unsupportedVersion(env); r != nil {
			return *r
		}
		if lvl := env.params.Meta.LogLevel; lvl != "" && !validLevel(mcp.LoggingLevel(lvl)) {
			// Ignored, it would leave the client waiting for log lines that never come.
			return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf(
				"invalid params: _meta %s %q is no logging level (debug, info, notice, warning, error, critical, alert, emergency)",
				mcp.MetaKeyLogLevel, clip.Name(lvl)))
		}
		rse, err := s.requestSession(ctx, se, env)
		if err != nil {
			return errorResponse(env.ID, codeInternalError, err.Error())
		}
		defer rse.end()
		se = rse
	}
	ctx = server.WithSupportedProtocolVersions(s.mcp.WithContext(ctx, se), s.versions())
	if rs != nil {
		ctx = withRequest(ctx, rs)
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("request handling panicked", "method", env.Method, "panic", r, "stack", string(debug.Stack()))
			resp = nil
			if env.isRequest() {
				resp = errorResponse(env.ID, codeInternalError, fmt.Sprintf("internal error: %v", r))
			}
		}
	}()
	if r := unnamedTarget(env); r != nil {
		return *r
	}
	if env.isRequest() && env.Method == string(mcp.MethodToolsCall) {
		if name := env.callParams().Name; !s.tools[name] {
			return rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: env.ID, Result: errorResult(s.unknownToolText(name))}
		}
		if se.perRequest && rs != nil {
			if r := s.resume(se, env, rs); r != nil {
				return *r
			}
		}
	}
	switch {
	case !env.isRequest() && !env.isNotification():
		s.answerClient(se, env)
		return nil
	case env.Method == string(mcp.MethodNotificationCancelled):
		s.cancelRequest(se, env.Params)
		return nil
	case env.isRequest():
		var (
			done func()
			err  error
		)
		if ctx, done, err = s.track(ctx, se, env.ID); err != nil {
			return errorResponse(env.ID, codeInvalidRequest, fmt.Sprintf("invalid request: id %s: %v", jsonLiteralName(env.ID), err))
		}
		defer done()
		if r, ok := s.serveTask(ctx, se, env); ok {
			return r
		}
	}
	if env.isRequest() && se.perRequest && env.Method == string(mcp.MethodSubscriptionsListen) && rs != nil && rs.stream != nil {
		var cancel context.CancelFunc
		ctx, cancel = s.listenContext(ctx, rs)
		defer cancel()
		defer s.listen(se, rs, env.ID)()
	}
	if env.modern() && present(env.params.Task) && env.Method == string(mcp.MethodToolsCall) {
		stripped, err := dropTaskParam(msg)
		if err != nil {
			return errorResponse(env.ID, codeInvalidParams, fmt.Sprintf("tools/call: params: %v", err))
		}
		msg = stripped
	}
	if env.isRequest() {
		if name := s.unknownNative(env); name != "" {
			if s.opts.AwaitCatalog != nil {
				s.opts.AwaitCatalog(ctx, name)
			}
			if r := s.unknownNativeAnswer(env); r != nil {
				return *r
			}
		}
	}
	ctx, readErr := watchReadError(ctx, env)
	resp = readErrorCode(withID(s.mcp.HandleMessage(ctx, msg), env.ID), readErr, env)
	if rs != nil && errors.Is(context.Cause(ctx), errClientCancelled) {
		rs.cancelled.Store(true)
	}
	if rs != nil && rs.inputRequests != nil {
		resp = withInputRequests(resp, rs.inputRequests)
	}
	return resp
}

// unnamedTarget answers a tools/call, prompts/get or resources/read that
// names nothing to call, get or read (or names it with no string), which
// mcp-go would answer with "tool not found" of an empty name and the like;
// nil for any other message.
func unnamedTarget(env *envelope) *rpcResponse {
	if !env.isRequest() {
		return nil
	}
	var problem string
	p := env.callParams()
	switch {
	case env.Method == string(mcp.MethodToolsCall) && p.Name == "":
		problem = `tools/call needs "name", a string naming the tool to run (find one with filter_tools)`
	case env.Method == string(mcp.MethodPromptsGet) && p.Name == "":
		problem = `prompts/get needs "name", a string naming the prompt (find one with prompts/list)`
	case env.Method == string(mcp.MethodResourcesRead) && p.URI == "":
		problem = `resources/read needs "uri", a string naming the resource (find one with resources/list)`
	default:
		return nil
	}
	r := errorResponse(env.ID, codeInvalidParams, "invalid params: "+problem)
	return &r
}

// withID answers with the request's id as the client wrote it: mcp-go
// decodes ids into float64, which alters integers beyond 2^53, and its
// RequestId re-encodes strings. An error's message is clipped: mcp-go
// quotes what it refuses whole ("Method … not found", an invalid logging
// level), and a request of megabytes would come back as large.
func withID(resp mcp.JSONRPCMessage, id json.RawMessage) any {
	switch r := resp.(type) {
	case mcp.JSONRPCResponse:
		return rpcResponse{JSONRPC: r.JSONRPC, ID: id, Result: r.Result}
	case mcp.JSONRPCError:
		return rpcResponse{JSONRPC: r.JSONRPC, ID: id, Error: &rpcError{Code: r.Error.Code,
			Message: clip.Text(r.Error.Message, clip.MessageLimit), Data: r.Error.Data}}
	}
	return resp
}

// isErrorResponse reports whether dispatch answered with a JSON-RPC error.
func isErrorResponse(resp any) bool {
	r, ok := resp.(rpcResponse)
	return ok && r.Error != nil
}

// encodeMessage writes msg as JSON without escaping <, > and &, so ids and
// content reach the client as the client or the backend wrote them.
func encodeMessage(msg any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (s *Server) unknownToolText(name string) string {
	if s.opts.UnknownTool != nil {
		return s.opts.UnknownTool(name)
	}
	return fmt.Sprintf("unknown tool %q", clip.Name(name))
}

// salvageID finds the id of a message too large to parse, from its first and
// last bytes, so the client waiting on it gets its error instead of a hang.
// Clients put the id first (most) or last (the TypeScript SDK).
func salvageID(head, tail []byte) json.RawMessage {
	if id := idFromHead(head); id != nil {
		return id
	}
	if m := tailIDPattern.FindSubmatch(tail); m != nil && json.Valid(m[1]) && idProblem(m[1]) == "" {
		return json.RawMessage(m[1])
	}
	return nil
}

var tailIDPattern = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*}\s*$`)

// idFromHead walks the top-level keys of a truncated JSON object until it
// meets "id" with a string or integer value.
func idFromHead(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key == "id" {
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return nil
			}
			if t := bytes.TrimSpace(v); idProblem(t) == "" {
				return t
			}
			return nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return nil
}
