package prometheus

import (
	"context"
	"fmt"
	"sort"
	"strings"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/toolgate/toolgate/sdk/plugin"
)

const (
	descExemplars = "Find exemplars — sample observations carrying a trace ID — of the series a PromQL selector picks, over a time range: " +
		"the bridge from a latency spike or an error rate to the traces that show why (trace_id labels)."
	descAlertmanagers = "List the Alertmanagers this Prometheus sends alerts to (active and dropped), to answer \"why did no notification arrive\"."
	descConfig        = "Show the Prometheus server's loaded configuration (YAML, secrets redacted by Prometheus): scrape jobs, intervals, " +
		"relabelling, rule files, remote write, alerting. Filter it to the lines around a word, e.g. a job name."
	descFlags = "Show the command-line flags the Prometheus server runs with: retention, storage path, enabled features, web settings, " +
		"optionally only those whose name contains a word."
	descTargetsMetadata = "Show metric metadata (type, help, unit) as each scrape target reports it, per target: which targets expose a metric, " +
		"and whether two targets disagree on its type or meaning."
)

type exemplarsArgs struct {
	Query string `json:"query" description:"PromQL selector of the series, e.g. http_request_duration_seconds_bucket{job=\"checkout\"}."`
	Start string `json:"start,omitempty" description:"Start of the range: RFC 3339, Unix seconds or milliseconds, \"now-1h\". Default: one hour before end."`
	End   string `json:"end,omitempty" description:"End of the range: RFC 3339, Unix seconds or milliseconds, \"now\". Default now."`
	Limit int    `json:"limit,omitempty" description:"At most this many series (default: the plugin's max_series); each keeps its newest max_points exemplars."`
}

func queryExemplars(ctx context.Context, c *client, in exemplarsArgs) (*plugin.Result, error) {
	if strings.TrimSpace(in.Query) == "" {
		return plugin.Errorf("query is required, e.g. http_request_duration_seconds_bucket{job=\"checkout\"}"), nil
	}
	start, end, notes, err := parseRange(in.Start, in.End)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := c.api.QueryExemplars(rctx, in.Query, start, end)
	if err != nil {
		return c.errorResult(ctx, in.Query, err)
	}
	limit := limitOr(in.Limit, c.maxSeries)
	shown, rest := page(res, 0, limit)
	out := map[string]any{"query": in.Query, "start": start, "end": end, "total": len(res), "series": shown, "notes": notes}
	if shown == nil {
		out["series"] = []v1.ExemplarQueryResult{}
	}
	var b strings.Builder
	if len(res) == 0 {
		fmt.Fprintf(&b, "no exemplars for %s from %s to %s. Exemplars exist only when the targets expose them (OpenMetrics) "+
			"and Prometheus runs with --enable-feature=exemplar-storage (flags shows it).", in.Query, formatTime(start), formatTime(end))
	} else {
		fmt.Fprintf(&b, "exemplars of %s from %s to %s", plural(len(res), "series", "series"), formatTime(start), formatTime(end))
	}
	for i, s := range shown {
		ex := s.Exemplars
		if len(ex) > c.maxPoints {
			ex = ex[len(ex)-c.maxPoints:]
		}
		shown[i].Exemplars = ex
		t := newTable("  TIME", "VALUE", "LABELS")
		for _, e := range ex {
			t.row("  "+formatModelTime(e.Timestamp), formatValue(float64(e.Value)), e.Labels.String())
		}
		fmt.Fprintf(&b, "\n\n%s (%s)\n%s", seriesName(model.Metric(s.SeriesLabels)), plural(len(s.Exemplars), "exemplar", "exemplars"), t)
	}
	if rest > 0 {
		b.WriteString("\n" + moreLine(rest, len(res), "series", "Add label matchers to the query, or raise limit."))
		out["truncated"] = truncated{Total: len(res), Shown: len(shown), Limit: fmt.Sprintf("limit=%d", limit)}
	}
	return plugin.JSON(out, b.String()+notesText(notes))
}

func listAlertmanagers(ctx context.Context, c *client, _ struct{}) (*plugin.Result, error) {
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := c.api.AlertManagers(rctx)
	if err != nil {
		return c.errorResult(ctx, "", err)
	}
	if res.Active == nil {
		res.Active = []v1.AlertManager{}
	}
	if res.Dropped == nil {
		res.Dropped = []v1.AlertManager{}
	}
	if len(res.Active)+len(res.Dropped) == 0 {
		return plugin.JSON(res, "no Alertmanagers configured: alerts fire in Prometheus but no notification is sent. "+
			"The alerting.alertmanagers section of the config (config tool) sets them.")
	}
	t := newTable("STATE", "URL")
	for _, a := range res.Active {
		t.row("active", a.URL)
	}
	for _, a := range res.Dropped {
		t.row("dropped", a.URL)
	}
	return plugin.JSON(res, fmt.Sprintf("%d active, %d dropped Alertmanagers\n%s", len(res.Active), len(res.Dropped), t))
}

type configArgs struct {
	Filter string `json:"filter,omitempty" description:"Only the config lines containing this text (case-insensitive) with their enclosing keys, e.g. a job name or remote_write."`
	Limit  int    `json:"limit,omitempty" description:"At most this many lines (default 200)."`
	Offset int    `json:"offset,omitempty" description:"Lines to skip, for the next page."`
}

// defaultConfigLines keeps a large server's configuration (thousands of
// lines of discovered jobs and relabelling) from filling the context.
const defaultConfigLines = 200

func showConfig(ctx context.Context, c *client, in configArgs) (*plugin.Result, error) {
	if in.Offset < 0 {
		return plugin.Errorf("offset must not be negative"), nil
	}
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := c.api.Config(rctx)
	if err != nil {
		return c.errorResult(ctx, "", err)
	}
	text := strings.TrimRight(res.YAML, "\n")
	if in.Filter != "" {
		text = yamlLinesAround(text, in.Filter)
		if text == "" {
			return plugin.JSON(map[string]any{"yaml": "", "filter": in.Filter}, fmt.Sprintf("no config line contains %q", in.Filter))
		}
	}
	lines := strings.Split(text, "\n")
	limit := limitOr(in.Limit, defaultConfigLines)
	shown, rest := page(lines, in.Offset, limit)
	text = strings.Join(shown, "\n")
	out := map[string]any{"yaml": text, "filter": in.Filter, "total_lines": len(lines), "offset": in.Offset}
	if len(shown) == 0 {
		return plugin.JSON(out, fmt.Sprintf("%d config lines; offset %d is past the end", len(lines), in.Offset))
	}
	if rest > 0 {
		next := in.Offset + len(shown)
		out["next_offset"] = next
		out["truncated"] = truncated{Total: len(lines), Shown: len(shown), Limit: fmt.Sprintf("limit=%d", limit)}
		text += fmt.Sprintf("\n… %d more lines not shown (%d in total); call again with offset=%d, "+
			"or keep what matters with filter (a job name, remote_write, alerting).", rest, len(lines), next)
	}
	return plugin.JSON(out, text)
}

// yamlLinesAround keeps the lines containing needle and the less indented
// lines above each, so a match keeps the path of keys that leads to it.
func yamlLinesAround(doc, needle string) string {
	lines := strings.Split(doc, "\n")
	keep := make([]bool, len(lines))
	for i, l := range lines {
		if !containsFold(l, needle) {
			continue
		}
		keep[i] = true
		depth := indentOf(l)
		for j := i - 1; j >= 0 && depth > 0; j-- {
			if d := indentOf(lines[j]); d < depth && strings.TrimSpace(lines[j]) != "" {
				keep[j], depth = true, d
			}
		}
	}
	var out []string
	for i, l := range lines {
		if keep[i] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func indentOf(l string) int {
	n := len(l) - len(strings.TrimLeft(l, " -"))
	return n
}

type flagsArgs struct {
	Filter string `json:"filter,omitempty" description:"Only flags whose name contains this text, e.g. retention, feature or web."`
}

func showFlags(ctx context.Context, c *client, in flagsArgs) (*plugin.Result, error) {
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := c.api.Flags(rctx)
	if err != nil {
		return c.errorResult(ctx, "", err)
	}
	names := make([]string, 0, len(res))
	kept := v1.FlagsResult{}
	for name, v := range res {
		if containsFold(name, in.Filter) {
			names = append(names, name)
			kept[name] = v
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return plugin.JSON(kept, fmt.Sprintf("no flag name contains %q", in.Filter))
	}
	t := newTable("FLAG", "VALUE")
	for _, n := range names {
		t.row(n, kept[n])
	}
	return plugin.JSON(kept, t.String())
}

type targetsMetadataArgs struct {
	Metric string `json:"metric,omitempty" description:"Only this metric, e.g. http_requests_total."`
	Target string `json:"target,omitempty" description:"Label selector of the targets, e.g. {job=\"checkout\"}. Default: all targets."`
	Limit  int    `json:"limit,omitempty" description:"At most this many entries (default 100)."`
}

func targetsMetadata(ctx context.Context, c *client, in targetsMetadataArgs) (*plugin.Result, error) {
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	md, err := c.api.TargetsMetadata(rctx, in.Target, in.Metric, "")
	if err != nil {
		return c.errorResult(ctx, in.Target, err)
	}
	sort.SliceStable(md, func(i, j int) bool {
		if md[i].Metric != md[j].Metric {
			return md[i].Metric < md[j].Metric
		}
		return md[i].Target["instance"] < md[j].Target["instance"]
	})
	limit := limitOr(in.Limit, 100)
	shown, rest := page(md, 0, limit)
	out := map[string]any{"total": len(md), "metadata": shown}
	if shown == nil {
		out["metadata"] = []v1.MetricMetadata{}
	}
	if len(md) == 0 {
		return plugin.JSON(out, "no target reports metadata for that metric and target selector; check them with list_metrics and targets")
	}
	t := newTable("METRIC", "JOB", "INSTANCE", "TYPE", "UNIT", "HELP")
	for _, m := range shown {
		t.row(firstOr(m.Metric, in.Metric), m.Target["job"], m.Target["instance"], string(m.Type), firstOr(m.Unit, "-"), m.Help)
	}
	text := fmt.Sprintf("%s\n%s", plural(len(md), "entry", "entries"), t)
	if rest > 0 {
		text += "\n" + moreLine(rest, len(md), "entries", "Name a metric or a target selector, or raise limit.")
		out["truncated"] = truncated{Total: len(md), Shown: len(shown), Limit: fmt.Sprintf("limit=%d", limit)}
	}
	return plugin.JSON(out, text)
}

func firstOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
