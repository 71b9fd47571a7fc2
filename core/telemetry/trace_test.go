package telemetry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/core/metatools"
	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// keptSpans is the in-memory exporter without the reset its Shutdown does,
// so spans can be read after Close has flushed them.
type keptSpans struct{ *tracetest.InMemoryExporter }

func (keptSpans) Shutdown(context.Context) error { return nil }

// A call_tool span continues the caller's trace, and a plugin that reads the
// trace context of its call over the real gRPC path continues the span.
func TestCallSpanAndItsContextInThePlugin(t *testing.T) {
	spans := keptSpans{tracetest.NewInMemoryExporter()}
	tel, err := New(context.Background(), Options{SpanExporter: spans, Version: "1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	// The plugin traces with its own provider into the same exporter, as a
	// plugin exporting to the same collector would.
	pluginTraces := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer pluginTraces.Shutdown(context.Background())
	backend := plugintest.ServePlugin(t, &plugin.Plugin{Name: "traced", Tools: []plugin.Tool{
		plugin.NewTool("work", "Work inside the gateway's trace.", func(ctx context.Context, _ *plugin.Call, _ struct{}) (*plugin.Result, error) {
			tp, ts := plugin.TraceContext(ctx)
			ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp, "tracestate": ts})
			_, span := pluginTraces.Tracer("plugin").Start(ctx, "plugin work")
			span.End()
			return plugin.Text(tp), nil
		}),
	}})

	// The caller's own span: what an instrumented client or proxy would send.
	callerTraces := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer callerTraces.Shutdown(context.Background())
	ctx, caller := callerTraces.Tracer("caller").Start(context.Background(), "caller")

	callCtx, end := tel.CallStarted(ctx)
	res, err := backend.CallTool(callCtx, &protov1.CallRequest{Name: "work", Arguments: json.RawMessage(`{}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	end(metatools.CallRecord{Name: "x_traced_work", Tool: "x_traced_work", Plugin: "traced", Outcome: metatools.OutcomeOK, ArgumentBytes: 2, Duration: time.Millisecond})
	_, end = tel.CallStarted(ctx)
	end(metatools.CallRecord{Name: "x_nope", Outcome: metatools.OutcomeUnknownTool, Error: "unknown tool \"x_nope\""})
	caller.End()
	if err := tel.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	byName := map[string][]tracetest.SpanStub{}
	for _, s := range spans.GetSpans() {
		byName[s.Name] = append(byName[s.Name], s)
	}
	if len(byName["caller"]) != 1 || len(byName["call_tool"]) != 2 || len(byName["plugin work"]) != 1 {
		t.Fatalf("spans: %v", byName)
	}
	root, ok, refused, work := byName["caller"][0], byName["call_tool"][0], byName["call_tool"][1], byName["plugin work"][0]
	if ok.Parent.SpanID() != root.SpanContext.SpanID() || refused.Parent.SpanID() != root.SpanContext.SpanID() {
		t.Errorf("call_tool spans are not children of the caller's span")
	}
	if work.Parent.SpanID() != ok.SpanContext.SpanID() || work.SpanContext.TraceID() != root.SpanContext.TraceID() {
		t.Errorf("the plugin's span is not a child of call_tool: parent %s, want %s", work.Parent.SpanID(), ok.SpanContext.SpanID())
	}
	if want := "00-" + ok.SpanContext.TraceID().String() + "-" + ok.SpanContext.SpanID().String() + "-01"; res.Content[0].Text != want {
		t.Errorf("plugin saw traceparent %q, want %q", res.Content[0].Text, want)
	}
	if ok.SpanKind != trace.SpanKindServer || ok.Status.Code != codes.Unset {
		t.Errorf("ok span: kind %s, status %+v", ok.SpanKind, ok.Status)
	}
	wantAttrs := []attribute.KeyValue{attrTool.String("x_traced_work"), attrPlugin.String("traced"), attrOutcome.String("ok"), attrArgumentBytes.Int(2)}
	if !sameAttrs(ok.Attributes, wantAttrs) {
		t.Errorf("ok span attributes %v, want %v", ok.Attributes, wantAttrs)
	}
	wantAttrs = []attribute.KeyValue{attrTool.String("x_nope"), attrPlugin.String(""), attrOutcome.String("unknown_tool"), attrArgumentBytes.Int(0)}
	if !sameAttrs(refused.Attributes, wantAttrs) || refused.Status.Code != codes.Error || refused.Status.Description != `unknown tool "x_nope"` {
		t.Errorf("refused span: attributes %v, status %+v", refused.Attributes, refused.Status)
	}
	if v, _ := ok.Resource.Set().Value("service.name"); v.AsString() != "toolgate" {
		t.Errorf("service.name %q", v.AsString())
	}
	if v, _ := ok.Resource.Set().Value("service.version"); v.AsString() != "1.2.3" {
		t.Errorf("service.version %q", v.AsString())
	}
}

func sameAttrs(got, want []attribute.KeyValue) bool {
	g, w := attribute.NewSet(got...), attribute.NewSet(want...)
	return g.Equals(&w)
}

// Without a collector listening, tracing still starts and stops: spans are
// lost, calls are not held up, and the gateway's log says where the spans
// could not go.
func TestOTLPEndpointDownIsNotFatal(t *testing.T) {
	before := goleak.IgnoreCurrent()
	var logs testparts.Buffer
	tel, err := New(context.Background(), Options{OTLPEndpoint: "127.0.0.1:1",
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Info})})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, end := tel.CallStarted(context.Background())
	end(metatools.CallRecord{Name: "x", Outcome: metatools.OutcomeOK})
	if time.Since(start) > 100*time.Millisecond {
		t.Errorf("a call waited %s for the collector", time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// The export fails; Close still returns within ctx.
	if err := tel.Close(ctx); err != nil && !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("Close: %v, want the collector's address in it", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("Close took %s", time.Since(start))
	}
	// The last export attempt may outlive Close, by exportTimeout at most.
	deadline := time.Now().Add(exportTimeout + 2*time.Second)
	for err := goleak.Find(before); err != nil; err = goleak.Find(before) {
		if time.Now().After(deadline) {
			t.Fatalf("exporter still running %s after Close: %v", exportTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := logs.String(); !strings.Contains(got, "[ERROR] spans not exported") ||
		!strings.Contains(got, "endpoint=127.0.0.1:1") {
		t.Errorf("the failed export is not in the gateway's log:\n%s", got)
	}
}

// An OTEL_EXPORTER_OTLP_* value the exporter cannot use is ignored by it;
// the gateway's log says so, instead of an unstructured line on stderr.
func TestUnusableOTELVariableIsLogged(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "no-equals-sign")
	var logs testparts.Buffer
	tel, err := New(context.Background(), Options{OTLPEndpoint: "127.0.0.1:1",
		Logger: hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Info})})
	if err != nil {
		t.Fatal(err)
	}
	if err := tel.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := logs.String(); !strings.Contains(got, "[ERROR] opentelemetry: parse headers") ||
		!strings.Contains(got, "input=no-equals-sign") {
		t.Errorf("the unusable variable is not in the gateway's log:\n%s", got)
	}
}
