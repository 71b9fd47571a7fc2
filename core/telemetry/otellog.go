package telemetry

import (
	"context"
	"sync"

	"github.com/go-logr/logr"
	"github.com/hashicorp/go-hclog"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// logOpenTelemetry sends what the OpenTelemetry SDK says about itself (an
// OTEL_EXPORTER_OTLP_* value it could not use and ignores, an error it has
// no caller to return to) to the gateway's log. Its default is the standard
// library's logger on stderr, unstructured, which a JSON log would not parse.
// The SDK keeps one such logger per process: the last gateway started wins.
func logOpenTelemetry(log hclog.Logger) {
	log = log.Named("opentelemetry")
	otel.SetLogger(logr.New(logSink{log: log}))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Error("error", "error", err) }))
}

// logSink is logr's interface to an hclog.Logger. The SDK logs warnings at
// V(1), information at V(4) and debugging at V(8).
type logSink struct {
	log hclog.Logger
}

func (s logSink) level(v int) hclog.Level {
	switch {
	case v <= 1:
		return hclog.Warn
	case v <= 4:
		return hclog.Debug
	default:
		return hclog.Trace
	}
}

func (logSink) Init(logr.RuntimeInfo) {}

func (s logSink) Enabled(v int) bool { return s.log.GetLevel() <= s.level(v) }

func (s logSink) Info(v int, msg string, kv ...any) { s.log.Log(s.level(v), msg, kv...) }

func (s logSink) Error(err error, msg string, kv ...any) {
	s.log.Error(msg, append([]any{"error", err}, kv...)...)
}

func (s logSink) WithValues(kv ...any) logr.LogSink { return logSink{log: s.log.With(kv...)} }

func (s logSink) WithName(name string) logr.LogSink { return logSink{log: s.log.Named(name)} }

// reportingExporter logs failed exports to the gateway's log, with the
// collector's address: the first failure as an error, then only when spans
// reach the collector again, with how many were lost in between, so a
// collector that stays down fills no log.
type reportingExporter struct {
	sdktrace.SpanExporter
	log      hclog.Logger
	endpoint string

	mu      sync.Mutex
	failing bool
	lost    int
}

func (e *reportingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := e.SpanExporter.ExportSpans(ctx, spans)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		if !e.failing {
			e.log.Error("spans not exported; further failures are logged when export works again",
				"endpoint", e.endpoint, "spans", len(spans), "error", err)
		}
		e.failing = true
		e.lost += len(spans)
		// Logged here; returned, the SDK would log it again on stderr.
		return nil
	}
	if e.failing {
		e.log.Info("spans exported again", "endpoint", e.endpoint, "lost", e.lost)
		e.failing, e.lost = false, 0
	}
	return nil
}

func (e *reportingExporter) Shutdown(ctx context.Context) error {
	err := e.SpanExporter.Shutdown(ctx)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failing {
		e.log.Warn("spans lost since the collector was last reached", "endpoint", e.endpoint, "lost", e.lost)
	}
	return err
}
