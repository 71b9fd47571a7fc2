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
)

// JSON-RPC error codes this package answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// errServerClosed refuses new sessions once Close has run.
var errServerClosed = errors.New("gateway is shutting down")

// envelope is the part of an incoming JSON-RPC message that decides how a
// transport handles it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// isRequest: a method and an id. MCP forbids null ids; mcp-go treats one as a
// notification, and so does this package.
func (e *envelope) isRequest() bool { return e.Method != "" && present(e.ID) }

// isNotification: a method and no id.
func (e *envelope) isNotification() bool { return e.Method != "" && !present(e.ID) }

// callParams is what the transports need of tools/call's params.
type callParams struct {
	Name string `json:"name"`
	Meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

func (e *envelope) callParams() callParams {
	var p callParams
	if e.Method == string(mcp.MethodToolsCall) {
		_ = json.Unmarshal(e.Params, &p) // a malformed params is mcp-go's to report
	}
	return p
}

// errBatch marks a JSON array: batches left MCP in 2025-06-18 and no client of
// the versions served here sends them.
var errBatch = errors.New("JSON-RPC batches are not supported")

func parseEnvelope(msg []byte) (*envelope, error) {
	t := bytes.TrimSpace(msg)
	if len(t) > 0 && t[0] == '[' {
		return nil, errBatch
	}
	var env envelope
	if err := json.Unmarshal(t, &env); err != nil {
		return nil, err
	}
	return &env, nil
}

// rpcResponse is a response this package writes itself, with the id copied
// byte for byte from the request.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func errorResponse(id json.RawMessage, code int, message string) rpcResponse {
	if !present(id) {
		id = json.RawMessage("null")
	}
	return rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Error: &rpcError{Code: code, Message: message}}
}

// parseErrorResponse answers a message that could not be read.
func parseErrorResponse(err error) rpcResponse {
	if errors.Is(err, errBatch) {
		return errorResponse(nil, codeInvalidRequest, err.Error())
	}
	return errorResponse(nil, codeParseError, fmt.Sprintf("parse error: %v", err))
}

// dispatch serves one parsed message for a session and returns what to send
// back: nil for notifications and responses.
func (s *Server) dispatch(ctx context.Context, se *session, msg []byte, env *envelope, rs *requestState) (resp any) {
	ctx = s.mcp.WithContext(ctx, se)
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
	if env.isRequest() && env.Method == string(mcp.MethodToolsCall) {
		if name := env.callParams().Name; name != "" && !s.tools[name] {
			return rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: env.ID, Result: errorResult(s.unknownToolText(name))}
		}
	}
	if !env.isRequest() && !env.isNotification() {
		// A client's answer to a server request; this gateway sends none yet.
		return nil
	}
	return s.mcp.HandleMessage(ctx, msg)
}

func (s *Server) unknownToolText(name string) string {
	if s.opts.UnknownTool != nil {
		return s.opts.UnknownTool(name)
	}
	return fmt.Sprintf("unknown tool %q", name)
}

// salvageID finds the id of a message too large to parse, from its first and
// last bytes, so the client waiting on it gets its error instead of a hang.
// Clients put the id first (most) or last (the TypeScript SDK).
func salvageID(head, tail []byte) json.RawMessage {
	if id := idFromHead(head); id != nil {
		return id
	}
	if m := tailIDPattern.FindSubmatch(tail); m != nil && json.Valid(m[1]) {
		return json.RawMessage(m[1])
	}
	return nil
}

var tailIDPattern = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*}\s*$`)

// idFromHead walks the top-level keys of a truncated JSON object until it
// meets "id" with a number or string value.
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
			if t := bytes.TrimSpace(v); len(t) > 0 && (t[0] == '"' || t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
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
