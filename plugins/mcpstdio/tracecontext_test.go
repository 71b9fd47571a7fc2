package mcpstdio_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

const (
	gatewayParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	gatewayState  = "vendor=gateway"
	clientParent  = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
)

// traced is a context carrying the trace context the gateway puts in a
// call's gRPC metadata when it traces the call.
func traced(ctx context.Context) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "traceparent", gatewayParent, "tracestate", gatewayState)
}

// TestTraceContextReachesServer checks, with the fixture server echoing the
// _meta each tools/call brought, that the call's W3C trace context reaches
// the MCP server as params._meta.traceparent and tracestate, beside the
// caller's own keys and never over them.
func TestTraceContextReachesServer(t *testing.T) {
	h := start(t, fixture(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	echo := func(t *testing.T, ctx context.Context, req *protov1.CallRequest) map[string]any {
		t.Helper()
		req.Name = "echo-meta"
		res, err := h.host.CallTool(ctx, req, &plugintest.Events{})
		if err != nil || res.IsError {
			t.Fatalf("echo-meta = %+v, %v", res, err)
		}
		var got struct {
			Meta map[string]any `json:"meta"`
		}
		if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
			t.Fatalf("echo-meta structured content %s: %v", res.StructuredContent, err)
		}
		return got.Meta
	}

	t.Run("traced call", func(t *testing.T) {
		meta := echo(t, traced(ctx), &protov1.CallRequest{})
		if meta["traceparent"] != gatewayParent || meta["tracestate"] != gatewayState {
			t.Errorf("server got _meta %v; want the gateway's traceparent and tracestate", meta)
		}
	})
	t.Run("untraced call", func(t *testing.T) {
		if meta := echo(t, ctx, &protov1.CallRequest{}); meta != nil {
			t.Errorf("server got _meta %v; want none", meta)
		}
	})
	t.Run("beside the caller's keys and progress token", func(t *testing.T) {
		meta := echo(t, traced(ctx), &protov1.CallRequest{Meta: json.RawMessage(`{"example.com/k":"v"}`), WantProgress: true})
		if meta["traceparent"] != gatewayParent || meta["tracestate"] != gatewayState || meta["example.com/k"] != "v" || meta["progressToken"] == nil {
			t.Errorf("server got _meta %v; want the caller's key, a progress token and the trace context", meta)
		}
	})
	t.Run("caller's trace context kept", func(t *testing.T) {
		meta := echo(t, traced(ctx), &protov1.CallRequest{Meta: json.RawMessage(`{"traceparent":"` + clientParent + `"}`)})
		if meta["traceparent"] != clientParent || meta["tracestate"] != nil {
			t.Errorf("server got _meta %v; want the caller's traceparent alone, not mixed with the gateway's", meta)
		}
	})
	t.Run("task", func(t *testing.T) {
		tr, ok := h.host.(protov1.TaskRunner)
		if !ok {
			t.Fatalf("the host's client %T runs no tasks", h.host)
		}
		task, err := tr.CreateTask(traced(ctx), &protov1.CallRequest{Name: "echo-meta", Meta: json.RawMessage(`{"example.com/k":"v"}`)}, nil)
		if err != nil {
			t.Fatalf("CreateTask: %v", err)
		}
		var meta map[string]any
		if err := json.Unmarshal([]byte(task.StatusMessage), &meta); err != nil {
			t.Fatalf("task status message %q: %v", task.StatusMessage, err)
		}
		if meta["traceparent"] != gatewayParent || meta["tracestate"] != gatewayState || meta["example.com/k"] != "v" {
			t.Errorf("server got _meta %v for the task-augmented call; want the caller's key and the trace context", meta)
		}
	})
}
