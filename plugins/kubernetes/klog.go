package kubernetes

import (
	"sync"

	"github.com/go-logr/logr"
	"github.com/hashicorp/go-hclog"
	"k8s.io/klog/v2"
)

var klogOnce sync.Once

// routeKlog sends client-go's own log lines (klog: plain text on stderr by
// default) to the plugin's structured logger at debug level. The host parses
// stderr as JSON lines, and every failure client-go logs is already reported
// to the caller by the tool that met it.
func routeKlog(logger hclog.Logger) {
	klogOnce.Do(func() {
		klog.SetLogger(logr.New(&klogSink{logger: logger.Named("client-go")}))
	})
}

// klogSink is a logr.LogSink writing to hclog.
type klogSink struct {
	logger hclog.Logger
}

func (s *klogSink) Init(logr.RuntimeInfo) {}

func (s *klogSink) Enabled(int) bool { return s.logger.IsDebug() }

func (s *klogSink) Info(_ int, msg string, kv ...any) { s.logger.Debug(msg, kv...) }

func (s *klogSink) Error(err error, msg string, kv ...any) {
	s.logger.Debug(msg, append(kv, "error", err)...)
}

func (s *klogSink) WithValues(kv ...any) logr.LogSink {
	return &klogSink{logger: s.logger.With(kv...)}
}

func (s *klogSink) WithName(name string) logr.LogSink {
	return &klogSink{logger: s.logger.Named(name)}
}
