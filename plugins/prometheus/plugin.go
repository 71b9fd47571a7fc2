// Package prometheus is toolgate's built-in Prometheus adapter: it lets an
// assistant ask a Prometheus server what an operator would ask it — run PromQL
// at an instant or over a range, find metrics and labels, see which targets
// are down, which alerts fire and why.
//
// Every answer is a short table for the assistant to read plus the raw data as
// structured content, cut to max_series / max_points with a line that says
// what was left out, because a single careless query can return more series
// than any context window holds. Failures come back as tool errors that name
// the cause: PromQL errors with Prometheus' own type and position, an
// unreachable server with its URL, a timeout as a timeout.
//
// The plugin runs out of process like every plugin; the gateway starts it as
// `toolgate plugin serve prometheus`, which calls plugin.Serve(Plugin()).
package prometheus

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// Version is reported to the gateway in GetInfo.
const Version = "1.0.0"

// adapter holds the client built from the current configuration.
type adapter struct {
	mu     sync.RWMutex
	client *client
}

// Plugin returns the Prometheus plugin, ready for plugin.Serve.
func Plugin() *plugin.Plugin {
	p, _ := newPlugin()
	return p
}

// newPlugin also returns the adapter, so tests can release its connections.
func newPlugin() (*plugin.Plugin, *adapter) {
	a := &adapter{}
	return &plugin.Plugin{
		Name:    "prometheus",
		Version: Version,
		Tools:   a.tools(),
		// The schema lets the gateway check the block before the plugin
		// runs; configure still checks what a schema cannot (URLs, files).
		Config: &plugin.Config{Schema: configSchema(), Configure: a.configure},
	}, a
}

func (a *adapter) configure(_ context.Context, raw json.RawMessage) error {
	s, err := parseConfig(raw)
	if err != nil {
		return err
	}
	c, err := newClient(s)
	if err != nil {
		return err
	}
	a.mu.Lock()
	old := a.client
	a.client = c
	a.mu.Unlock()
	if old != nil {
		old.close()
	}
	return nil
}

// close releases the current client's connections; the process exit does
// it in production, tests call it so no keep-alive goroutine outlives them.
func (a *adapter) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.client != nil {
		a.client.close()
	}
}

// current returns the configured client, or a tool error when the plugin has
// not been configured (the gateway always configures before calling).
func (a *adapter) current() (*client, *plugin.Result) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.client == nil {
		return nil, plugin.Errorf("the prometheus plugin is not configured: its config block needs at least url")
	}
	return a.client, nil
}

// toolOpts are shared by every tool: nothing here changes Prometheus.
func toolOpts(title string) []plugin.ToolOption {
	return []plugin.ToolOption{
		plugin.Title(title),
		plugin.ReadOnly(),
		plugin.Idempotent(),
		plugin.Labels(map[string]string{"category": "observability"}),
	}
}

// handler adapts a tool function that needs the configured client.
func handler[A any](a *adapter, fn func(ctx context.Context, c *client, args A) (*plugin.Result, error)) func(context.Context, *plugin.Call, A) (*plugin.Result, error) {
	return func(ctx context.Context, _ *plugin.Call, args A) (*plugin.Result, error) {
		c, res := a.current()
		if res != nil {
			return res, nil
		}
		return fn(ctx, c, args)
	}
}

func (a *adapter) tools() []plugin.Tool {
	return []plugin.Tool{
		plugin.NewTool("query", descQuery, handler(a, instantQuery), toolOpts("Prometheus instant query")...),
		plugin.NewTool("query_range", descQueryRange, handler(a, rangeQuery), toolOpts("Prometheus range query")...),
		plugin.NewTool("list_metrics", descListMetrics, handler(a, listMetrics), toolOpts("List Prometheus metric names")...),
		plugin.NewTool("metric_metadata", descMetadata, handler(a, metricMetadata), toolOpts("Prometheus metric metadata")...),
		plugin.NewTool("label_names", descLabelNames, handler(a, labelNames), toolOpts("Prometheus label names")...),
		plugin.NewTool("label_values", descLabelValues, handler(a, labelValues), toolOpts("Prometheus label values")...),
		plugin.NewTool("series", descSeries, handler(a, findSeries), toolOpts("Prometheus series")...),
		plugin.NewTool("targets", descTargets, handler(a, listTargets), toolOpts("Prometheus scrape targets")...),
		plugin.NewTool("alerts", descAlerts, handler(a, listAlerts), toolOpts("Prometheus active alerts")...),
		plugin.NewTool("rules", descRules, handler(a, listRules), toolOpts("Prometheus alerting and recording rules")...),
		plugin.NewTool("tsdb_status", descStatus, handler(a, serverStatus), toolOpts("Prometheus server and TSDB status")...),
		plugin.NewTool("exemplars", descExemplars, handler(a, queryExemplars), toolOpts("Prometheus exemplars (trace IDs)")...),
		plugin.NewTool("alertmanagers", descAlertmanagers, handler(a, listAlertmanagers), toolOpts("Prometheus Alertmanagers")...),
		plugin.NewTool("config", descConfig, handler(a, showConfig), toolOpts("Prometheus configuration")...),
		plugin.NewTool("flags", descFlags, handler(a, showFlags), toolOpts("Prometheus command-line flags")...),
		plugin.NewTool("targets_metadata", descTargetsMetadata, handler(a, targetsMetadata), toolOpts("Prometheus metric metadata per target")...),
	}
}
