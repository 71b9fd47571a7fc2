package telemetry

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/toolgate/toolgate/core/metatools"
)

// PluginStatus is one plugin as the plugin metrics show it, read at scrape time.
type PluginStatus struct {
	Name     string
	State    string // one of Options.PluginStates
	Restarts int    // crashes and failed starts since the gateway started
	Tools    int    // tools in the catalog
}

// callDurationBuckets start below a millisecond, where core tools and
// refused calls answer (0.1-0.3 ms) and a plugin call over gRPC begins, and
// reach the longest timeout a call may ask for (max_call_timeout, 1 h by
// default): a slow tool is what an operator looks for.
var callDurationBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5,
	1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600}

// metrics are the gateway's Prometheus metrics, on a registry of their own
// so nothing registered globally by a library leaks into /metrics.
type metrics struct {
	registry     *prometheus.Registry
	calls        *prometheus.CounterVec
	callDuration *prometheus.HistogramVec
	metaCalls    *prometheus.CounterVec
	auditDropped prometheus.Counter
}

func newMetrics(plugins func() []PluginStatus, states []string) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_tool_calls_total",
			Help: "Tool calls through call_tool, by plugin, tool and outcome. Calls of unknown names count with tool=\"\".",
		}, []string{"plugin", "tool", "outcome"}),
		callDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "toolgate_tool_call_duration_seconds",
			Help:    "Time from a call_tool request to its answer, by plugin (\"\" for core tools and refused calls).",
			Buckets: callDurationBuckets,
		}, []string{"plugin"}),
		metaCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolgate_meta_tool_calls_total",
			Help: "Calls of each meta-tool (list_tools, filter_tools, call_tool, ...).",
		}, []string{"tool"}),
		auditDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolgate_audit_lines_dropped_total",
			Help: "Audit log lines lost because the writer fell behind or the file could not be written.",
		}),
	}
	m.registry.MustRegister(m.calls, m.callDuration, m.metaCalls, m.auditDropped,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if plugins != nil {
		m.registry.MustRegister(&pluginCollector{plugins: plugins, states: states})
	}
	return m
}

func (m *metrics) observe(r metatools.CallRecord) {
	m.calls.WithLabelValues(r.Plugin, r.Tool, string(r.Outcome)).Inc()
	m.callDuration.WithLabelValues(r.Plugin).Observe(r.Duration.Seconds())
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

var (
	stateDesc = prometheus.NewDesc("toolgate_plugin_state",
		"1 for the state each plugin is in, 0 for the others.", []string{"plugin", "state"}, nil)
	restartsDesc = prometheus.NewDesc("toolgate_plugin_restarts_total",
		"Crashes and failed starts of each plugin since the gateway started (the restarts core_plugin_get shows).", []string{"plugin"}, nil)
	catalogDesc = prometheus.NewDesc("toolgate_catalog_tools",
		"Tools each plugin has in the catalog.", []string{"plugin"}, nil)
)

// pluginCollector reads every plugin's status when scraped, so the metrics
// are never behind the supervisors that own the state.
type pluginCollector struct {
	plugins func() []PluginStatus
	states  []string
}

func (c *pluginCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- stateDesc
	ch <- restartsDesc
	ch <- catalogDesc
}

func (c *pluginCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.plugins() {
		for _, s := range c.states {
			v := 0.0
			if s == p.State {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(stateDesc, prometheus.GaugeValue, v, p.Name, s)
		}
		ch <- prometheus.MustNewConstMetric(restartsDesc, prometheus.CounterValue, float64(p.Restarts), p.Name)
		ch <- prometheus.MustNewConstMetric(catalogDesc, prometheus.GaugeValue, float64(p.Tools), p.Name)
	}
}
