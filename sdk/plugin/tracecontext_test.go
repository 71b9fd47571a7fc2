package plugin_test

import (
	"context"
	"encoding/json"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// The trace context a host puts in a call's gRPC metadata reaches the tool
// handler over the real gRPC path.
func TestTraceContextReachesTheHandler(t *testing.T) {
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "tracer", Tools: []plugin.Tool{
		plugin.NewTool("trace", "Answer the trace context of the call.", func(ctx context.Context, _ *plugin.Call, _ struct{}) (*plugin.Result, error) {
			tp, ts := plugin.TraceContext(ctx)
			return plugin.Text(tp + "|" + ts), nil
		}),
	}})
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, tc := range []struct {
		md   []string
		want string
	}{
		{[]string{"traceparent", tp, "tracestate", "vendor=1"}, tp + "|vendor=1"},
		{[]string{"traceparent", tp}, tp + "|"},
		{nil, "|"},
	} {
		ctx := context.Background()
		if tc.md != nil {
			ctx = metadata.AppendToOutgoingContext(ctx, tc.md...)
		}
		res, err := b.CallTool(ctx, &protov1.CallRequest{Name: "trace", Arguments: json.RawMessage(`{}`)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Content[0].Text; got != tc.want {
			t.Errorf("metadata %v: handler saw %q, want %q", tc.md, got, tc.want)
		}
	}
	if tp, ts := plugin.TraceContext(context.Background()); tp != "" || ts != "" {
		t.Errorf("outside a call: %q %q", tp, ts)
	}
}
