package telemetry

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"

	"github.com/toolgate/toolgate/core/metatools"
)

// exportTimeout bounds the export of one batch of spans, retries included.
const exportTimeout = 5 * time.Second

// tracerName names the instrumentation in every span.
const tracerName = "github.com/toolgate/toolgate/core/telemetry"

// Span attributes of a call_tool span.
const (
	attrTool          = attribute.Key("toolgate.tool")
	attrPlugin        = attribute.Key("toolgate.plugin")
	attrOutcome       = attribute.Key("toolgate.outcome")
	attrArgumentBytes = attribute.Key("toolgate.argument_bytes")
)

// tracing owns the gateway's tracer provider; it is not installed globally,
// so nothing else in the process exports through it by accident.
type tracing struct {
	provider *sdktrace.TracerProvider
	tracer   trace.Tracer
	endpoint string // "" when spans go to an exporter given in Options
}

// newTracing exports to exporter when given, else to the OTLP/gRPC endpoint
// (host:port in plain text, or an http:// or https:// URL).
func newTracing(ctx context.Context, endpoint string, exporter sdktrace.SpanExporter, version string, log hclog.Logger) (*tracing, error) {
	logOpenTelemetry(log)
	if exporter == nil {
		opt := otlptracegrpc.WithEndpointURL(endpoint)
		if !strings.Contains(endpoint, "://") {
			opt = otlptracegrpc.WithEndpointURL("http://" + endpoint)
		}
		var err error
		// The gRPC connection is made lazily: an absent collector costs
		// dropped spans and a logged error, never a failed start. A batch
		// is tried for exportTimeout at most, so a shutdown is not held up.
		exporter, err = otlptracegrpc.New(ctx, opt, otlptracegrpc.WithTimeout(exportTimeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: true,
				InitialInterval: 500 * time.Millisecond, MaxInterval: 2 * time.Second, MaxElapsedTime: exportTimeout}))
		if err != nil {
			return nil, fmt.Errorf("OTLP exporter for %s: %w", endpoint, err)
		}
		exporter = &reportingExporter{SpanExporter: exporter, log: log, endpoint: endpoint}
	} else {
		endpoint = ""
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", "toolgate"),
		attribute.String("service.version", version),
	)
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	return &tracing{provider: p, tracer: p.Tracer(tracerName), endpoint: endpoint}, nil
}

// start opens the call_tool span and puts its W3C trace context into the
// outgoing gRPC metadata, which travels with the call to the plugin.
func (t *tracing) start(ctx context.Context) (context.Context, trace.Span) {
	ctx, span := t.tracer.Start(ctx, "call_tool", trace.WithSpanKind(trace.SpanKindServer))
	md, _ := metadata.FromOutgoingContext(ctx)
	md = md.Copy()
	propagation.TraceContext{}.Inject(ctx, metadataCarrier(md))
	return metadata.NewOutgoingContext(ctx, md), span
}

func (t *tracing) end(span trace.Span, r metatools.CallRecord) {
	span.SetAttributes(
		attrTool.String(truncate(r.Name, maxAuditName)),
		attrPlugin.String(r.Plugin),
		attrOutcome.String(string(r.Outcome)),
		attrArgumentBytes.Int(r.ArgumentBytes),
	)
	if r.Outcome != metatools.OutcomeOK {
		span.SetStatus(codes.Error, truncate(r.Error, maxAuditError))
	}
	span.End()
}

func (t *tracing) close(ctx context.Context) error {
	if err := t.provider.Shutdown(ctx); err != nil {
		if t.endpoint != "" {
			return fmt.Errorf("flush traces to %s: %w", t.endpoint, err)
		}
		return fmt.Errorf("flush traces: %w", err)
	}
	return nil
}

// metadataCarrier lets the W3C propagator write gRPC metadata.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
