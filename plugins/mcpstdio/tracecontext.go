package mcpstdio

import (
	"context"
	"encoding/json"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// callMeta is the _meta a tools/call carries to the server: the caller's own
// keys, plus the W3C trace context of the gateway's call_tool span when the
// gateway traces the call. MCP carries trace context as the root keys
// traceparent and tracestate of a request's params._meta (the convention of
// OpenTelemetry's MCP semantic conventions, documented by MCP in SEP-414), so
// a server that traces continues the gateway's trace.
//
// A caller's trace context is never replaced, nor mixed with the gateway's:
// when _meta already holds traceparent or tracestate, neither is added.
func callMeta(ctx context.Context, req *protov1.CallRequest) (map[string]json.RawMessage, error) {
	meta := map[string]json.RawMessage{}
	if m := present(req.Meta); m != nil {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, protov1.InvalidArgumentf("_meta of the call to %q must be a JSON object: %v", req.Name, err)
		}
	}
	traceparent, tracestate := plugin.TraceContext(ctx)
	if traceparent == "" {
		return meta, nil
	}
	if _, ok := meta["traceparent"]; ok {
		return meta, nil
	}
	if _, ok := meta["tracestate"]; ok {
		return meta, nil
	}
	meta["traceparent"], _ = json.Marshal(traceparent)
	if tracestate != "" {
		meta["tracestate"], _ = json.Marshal(tracestate)
	}
	return meta, nil
}
