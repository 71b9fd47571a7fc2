// Package telemetry lets an operator watch and audit the gateway: Prometheus
// metrics of tool calls and plugins, an append-only audit log with one JSON
// line per call_tool, and an OpenTelemetry span per call_tool whose W3C trace
// context travels to the plugin in the call's gRPC metadata. It observes
// calls through metatools.CallObserver, so the handlers know nothing of it.
package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolgate/toolgate/core/gateway"
	"github.com/toolgate/toolgate/core/metatools"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// DefaultAuditBuffer is how many audit lines may wait for the writer before
// new ones are dropped.
const DefaultAuditBuffer = 4096

// Options say which parts of telemetry run; the zero value runs none.
type Options struct {
	Logger  hclog.Logger
	Version string // service.version of the spans

	// Metrics keeps the Prometheus metrics that Handler serves.
	Metrics bool
	// Plugins, when set, is read at every scrape for the plugin metrics;
	// PluginStates are all the states a plugin can be in, each a series.
	Plugins      func() []PluginStatus
	PluginStates []string

	// AuditLog is the file that gets a JSON line per call_tool; "" = none.
	AuditLog    string
	AuditBuffer int // DefaultAuditBuffer when 0
	// AuditMaxSize rotates the audit log before it grows past this many
	// bytes (0: never); AuditKeep old files are kept, the oldest deleted.
	AuditMaxSize int64
	AuditKeep    int

	// OTLPEndpoint receives the spans over OTLP/gRPC: host:port (plain text)
	// or an http:// or https:// URL. SpanExporter, when set, receives them
	// instead. Neither: no tracing.
	OTLPEndpoint string
	SpanExporter sdktrace.SpanExporter
}

// Telemetry observes call_tool (it is a metatools.CallObserver) and counts
// meta-tool calls. Close it to flush the audit log and the spans.
type Telemetry struct {
	log     hclog.Logger
	metrics *metrics
	audit   *audit
	tracing *tracing
}

var _ metatools.CallObserver = (*Telemetry)(nil)

// New starts what opts ask for. It fails only when the audit log cannot be
// opened or the exporter cannot be built; a collector that is down is
// logged, not fatal.
func New(ctx context.Context, opts Options) (*Telemetry, error) {
	t := &Telemetry{log: opts.Logger}
	if t.log == nil {
		t.log = hclog.NewNullLogger()
	}
	if opts.Metrics {
		t.metrics = newMetrics(opts.Plugins, opts.PluginStates)
	}
	if opts.AuditLog != "" {
		buffer := opts.AuditBuffer
		if buffer <= 0 {
			buffer = DefaultAuditBuffer
		}
		var dropped func()
		if t.metrics != nil {
			dropped = t.metrics.auditDropped.Inc
		}
		a, err := openAudit(opts.AuditLog, opts.AuditMaxSize, opts.AuditKeep, buffer, t.log.Named("audit"), dropped)
		if err != nil {
			return nil, err
		}
		t.audit = a
	}
	if opts.OTLPEndpoint != "" || opts.SpanExporter != nil {
		tr, err := newTracing(ctx, opts.OTLPEndpoint, opts.SpanExporter, opts.Version, t.log)
		if err != nil {
			if t.audit != nil {
				_ = t.audit.close()
			}
			return nil, err
		}
		t.tracing = tr
	}
	return t, nil
}

// Handler serves the metrics in the Prometheus text format; nil when
// Options.Metrics was off.
func (t *Telemetry) Handler() http.Handler {
	if t.metrics == nil {
		return nil
	}
	return t.metrics.handler()
}

// CallStarted opens the call's span (when tracing) and returns what records
// the call when it ends: metrics, audit line, span attributes.
func (t *Telemetry) CallStarted(ctx context.Context) (context.Context, func(metatools.CallRecord)) {
	who, _ := gateway.CallerFrom(ctx)
	if t.tracing == nil {
		return ctx, func(r metatools.CallRecord) { t.record(r, who) }
	}
	ctx, span := t.tracing.start(ctx)
	return ctx, func(r metatools.CallRecord) {
		t.record(r, who)
		t.tracing.end(span, r)
	}
}

func (t *Telemetry) record(r metatools.CallRecord, who gateway.Caller) {
	if t.metrics != nil {
		t.metrics.observe(r)
	}
	if t.audit != nil {
		t.audit.record(time.Now().Add(-r.Duration), r, who) // when the call came in
	}
}

// MetaTool counts the calls of the meta-tool named name around handle.
func (t *Telemetry) MetaTool(name string, handle func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error)) func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
	if t.metrics == nil {
		return handle
	}
	counter := t.metrics.metaCalls.WithLabelValues(name)
	return func(ctx context.Context, args json.RawMessage, events protov1.CallEvents) (*protov1.Result, error) {
		counter.Inc()
		return handle(ctx, args, events)
	}
}

// Close writes out the audit log and the spans still buffered; ctx bounds
// how long the spans may take to reach the collector.
func (t *Telemetry) Close(ctx context.Context) error {
	var errs []error
	if t.audit != nil {
		errs = append(errs, t.audit.close())
	}
	if t.tracing != nil {
		errs = append(errs, t.tracing.close(ctx))
	}
	return errors.Join(errs...)
}
