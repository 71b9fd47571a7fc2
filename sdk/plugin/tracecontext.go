package plugin

import (
	"context"

	"google.golang.org/grpc/metadata"
)

// TraceContext returns the W3C trace context headers (traceparent and
// tracestate) the gateway sent with the call whose ctx a tool handler got;
// both are "" when the gateway traces nothing. They name the gateway's
// call_tool span, so a plugin that traces with OpenTelemetry continues the
// same trace by extracting them:
//
//	tp, ts := plugin.TraceContext(ctx)
//	ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp, "tracestate": ts})
//
// The SDK hands them over as strings so it does not depend on OpenTelemetry.
func TraceContext(ctx context.Context) (traceparent, tracestate string) {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok {
		return "", ""
	}
	first := func(key string) string {
		if v := md.Get(key); len(v) > 0 {
			return v[0]
		}
		return ""
	}
	return first("traceparent"), first("tracestate")
}
