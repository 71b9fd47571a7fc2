package mcpstdio

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

var (
	// ErrNotConfigured answers any request made before Configure succeeded.
	ErrNotConfigured = errors.New("mcp-stdio: not configured")
	// ErrServerGone answers a request the server can no longer answer: it
	// exited, or the plugin is shutting it down.
	ErrServerGone = errors.New("mcp server is gone")
	// ErrUnsupportedByServer answers a request for something the server did
	// not declare (resource subscriptions).
	ErrUnsupportedByServer = errors.New("not offered by the mcp server")
)

// RPCError is a JSON-RPC error the server answered a request with.
type RPCError struct {
	Method  string
	Code    int
	Message string
	Data    json.RawMessage
}

func (e *RPCError) Error() string {
	msg := fmt.Sprintf("%s: MCP error %d: %s", e.Method, e.Code, e.Message)
	if len(e.Data) > 0 {
		msg += " (" + string(e.Data) + ")"
	}
	return msg
}

// Unwrap lets callers and the gRPC layer classify the server's answer with
// errors.Is against protov1's sentinels.
func (e *RPCError) Unwrap() error {
	switch e.Code {
	case mcp.RESOURCE_NOT_FOUND, mcp.METHOD_NOT_FOUND:
		return protov1.ErrNotFound
	case mcp.INVALID_PARAMS:
		return protov1.ErrInvalidArgument
	}
	return nil
}

func rpcError(method string, d *mcp.JSONRPCErrorDetails) *RPCError {
	// Servers built on the TypeScript SDK send their McpError's text, which
	// already starts with the code; Error adds it again.
	msg := strings.TrimPrefix(d.Message, fmt.Sprintf("MCP error %d: ", d.Code))
	e := &RPCError{Method: method, Code: d.Code, Message: msg}
	if d.Data != nil {
		e.Data, _ = json.Marshal(d.Data)
	}
	return e
}
