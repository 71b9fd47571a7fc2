package prometheus

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/toolgate/toolgate/sdk/plugin"
)

const (
	descListMetrics = "List the metric names Prometheus has, filtered by a substring or a regular expression, paged. " +
		"Use it to find which metrics exist before writing a query (e.g. everything about http, latency or cpu)."
	descMetadata = "Describe a metric: its type (counter, gauge, histogram, summary), help text and unit, " +
		"as the scraped targets declare them. Use it to learn what a metric means and how to query it."
	descLabelNames = "List the label names (dimensions) present on all series, or only on those a selector picks, " +
		"e.g. which labels http_requests_total has to group or filter by."
	descLabelValues = "List the values of one label, optionally only on series matching a selector: " +
		"e.g. all jobs, all instances of a job, all status codes of a metric, all namespaces."
	descSeries = "Find the time series (full label sets) that match a selector such as " +
		"http_requests_total{job=\"checkout\"}, to see which series exist and how they are labelled, without their values."
)

// window reads the optional time window of a metadata lookup; zero times
// leave Prometheus' own default (all of its data). notes say how a time was
// read when that was not plain.
func window(startArg, endArg string) (start, end time.Time, notes []string, defaulted bool, err error) {
	now := time.Now().UTC()
	start, startNote, err := parseTime("start", startArg, now, time.Time{})
	if err != nil {
		return start, end, nil, false, err
	}
	end, endNote, err := parseTime("end", endArg, now, time.Time{})
	if err != nil {
		return start, end, nil, false, err
	}
	if start.IsZero() {
		// Without a start Prometheus reads the index of every block it
		// stores, months of them on a large server.
		from := end
		if from.IsZero() {
			from = now
		}
		start, defaulted = from.Add(-defaultWindow), true
	}
	if !end.IsZero() && end.Before(start) {
		return start, end, nil, false, &TimeError{Arg: "end", Value: endArg,
			Reason: fmt.Sprintf("is before start (%s)", formatTime(start)), Fix: "swap start and end"}
	}
	return start, end, appendNote(appendNote(nil, startNote), endNote), defaulted, nil
}

// defaultWindow is how far back the listing tools look without a start.
const defaultWindow = 24 * time.Hour

// windowNote tells why a listing over the default window found nothing.
func windowNote(defaulted bool, found int, notes []string) []string {
	if !defaulted || found > 0 {
		return notes
	}
	return append(notes, "only the last 24h before end was searched (the default); give start, e.g. \"now-30d\", to look further back")
}

func selectors(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []string{s}
}

type listMetricsArgs struct {
	Filter   string `json:"filter,omitempty" description:"Keep names containing this text (case-insensitive), or matching it when regex is true, e.g. \"http\" or \"^node_(cpu|memory)_\"."`
	Regex    bool   `json:"regex,omitempty" description:"Treat filter as an RE2 regular expression (unanchored) instead of a substring."`
	Selector string `json:"selector,omitempty" description:"Only metrics of series matching this selector, e.g. {job=\"checkout\"}."`
	Start    string `json:"start,omitempty" description:"Only metrics with data after this time: RFC 3339, Unix seconds or milliseconds, or \"now-30d\". Default: 24 hours before end."`
	End      string `json:"end,omitempty" description:"Only metrics with data before this time: RFC 3339, Unix seconds or milliseconds, or \"now\". Default now."`
	Limit    int    `json:"limit,omitempty" description:"Names per page, up to 1000 (default 100)."`
	Offset   int    `json:"offset,omitempty" description:"Names to skip, for the next page."`
}

type pageResult[T any] struct {
	Total  int      `json:"total"`
	Offset int      `json:"offset"`
	Items  []T      `json:"items"`
	Next   *int     `json:"next_offset,omitempty"`
	Filter string   `json:"filter,omitempty"`
	Notes  []string `json:"notes,omitempty"`
}

func listMetrics(ctx context.Context, c *client, in listMetricsArgs) (*plugin.Result, error) {
	match := func(string) bool { return true }
	switch {
	case in.Filter != "" && in.Regex:
		re, err := regexp.Compile(in.Filter)
		if err != nil {
			return plugin.Errorf("filter is not a valid regular expression: %v", err), nil
		}
		match = re.MatchString
	case in.Filter != "":
		needle := strings.ToLower(in.Filter)
		match = func(s string) bool { return strings.Contains(strings.ToLower(s), needle) }
	}
	start, end, notes, defaulted, err := window(in.Start, in.End)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	names, warnings, err := c.api.LabelValues(rctx, model.MetricNameLabel, selectors(in.Selector), start, end)
	if err != nil {
		return c.errorResult(ctx, in.Selector, err)
	}
	var kept []string
	for _, n := range names {
		if match(string(n)) {
			kept = append(kept, string(n))
		}
	}
	what := "metric names"
	if in.Filter != "" {
		what += fmt.Sprintf(" matching %q", in.Filter)
	}
	return pagedList(kept, in.Offset, in.Limit, 100, what, in.Filter, "narrow with filter or selector", windowNote(defaulted, len(kept), notes), warnings)
}

// narrowBySelector is how to shorten a list of label names or values: the
// label tools take no filter.
const narrowBySelector = `narrow with a selector (e.g. {job="api"}) or start and end`

// pagedList answers a list of names one page at a time; narrow says which
// arguments of the tool make the list shorter.
func pagedList(items []string, offset, limitArg, def int, what, filter, narrow string, notes []string, warnings v1.Warnings) (*plugin.Result, error) {
	if offset < 0 {
		return plugin.Errorf("offset must not be negative"), nil
	}
	limit, err := ceiled("limit", limitArg, def)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	shown, rest := page(items, offset, limit)
	out := pageResult[string]{Total: len(items), Offset: offset, Items: shown, Filter: filter, Notes: notes}
	if out.Items == nil {
		out.Items = []string{}
	}
	var b strings.Builder
	switch {
	case len(items) == 0:
		fmt.Fprintf(&b, "no %s", what)
	case len(shown) == 0:
		fmt.Fprintf(&b, "%d %s; offset %d is past the end", len(items), what, offset)
	default:
		fmt.Fprintf(&b, "%d %s (showing %d–%d)\n%s", len(items), what, offset+1, offset+len(shown), strings.Join(shown, "\n"))
	}
	if rest > 0 {
		next := offset + len(shown)
		out.Next = &next
		fmt.Fprintf(&b, "\n… %d more not shown; call again with offset=%d, or %s.", rest, next, narrow)
	}
	return plugin.JSON(out, b.String()+notesText(notes)+warningsText(warnings))
}

type metadataArgs struct {
	Metric string `json:"metric" description:"Metric name, e.g. http_requests_total or http_request_duration_seconds (a histogram's _bucket/_sum/_count names work too)."`
}

type metadataResult struct {
	Metric   string                   `json:"metric"`
	Family   string                   `json:"family,omitempty"` // the name metadata was found under, when it differs
	Metadata map[string][]v1.Metadata `json:"metadata"`
}

// familySuffixes are the sample-name suffixes metadata is not kept under.
var familySuffixes = []string{"_bucket", "_count", "_sum", "_total", "_created", "_info"}

func metricMetadata(ctx context.Context, c *client, in metadataArgs) (*plugin.Result, error) {
	if strings.TrimSpace(in.Metric) == "" {
		return plugin.Errorf("metric is required, e.g. http_requests_total; use list_metrics to find names"), nil
	}
	candidates := []string{in.Metric}
	for _, suf := range familySuffixes {
		if base, ok := strings.CutSuffix(in.Metric, suf); ok && base != "" {
			candidates = append(candidates, base)
		}
	}
	for _, name := range candidates {
		rctx, cancel := c.withTimeout(ctx)
		md, err := c.api.Metadata(rctx, name, "")
		cancel()
		if err != nil {
			return c.errorResult(ctx, "", err)
		}
		if len(md) == 0 {
			continue
		}
		out := metadataResult{Metric: in.Metric, Metadata: md}
		head := ""
		if name != in.Metric {
			out.Family = name
			head = fmt.Sprintf("%s belongs to the metric family %s:\n", in.Metric, name)
		}
		t := newTable("METRIC", "TYPE", "UNIT", "HELP")
		for _, m := range md[name] {
			unit := m.Unit
			if unit == "" {
				unit = "-"
			}
			t.row(name, string(m.Type), unit, m.Help)
		}
		return plugin.JSON(out, head+t.String())
	}
	return plugin.JSON(metadataResult{Metric: in.Metric, Metadata: map[string][]v1.Metadata{}},
		fmt.Sprintf("no metadata for %s. Prometheus only has metadata for metrics its targets currently expose "+
			"(not for recording-rule or backfilled series); check the name with list_metrics or series.", in.Metric))
}

type labelNamesArgs struct {
	Selector string `json:"selector,omitempty" description:"Only labels of series matching this selector, e.g. http_requests_total or {job=\"checkout\"}."`
	Start    string `json:"start,omitempty" description:"Only series with data after this time: RFC 3339, Unix seconds or milliseconds, or \"now-30d\". Default: 24 hours before end."`
	End      string `json:"end,omitempty" description:"Only series with data before this time: RFC 3339, Unix seconds or milliseconds, or \"now\". Default now."`
	Limit    int    `json:"limit,omitempty" description:"Names per page, up to 1000 (default 200)."`
	Offset   int    `json:"offset,omitempty" description:"Names to skip, for the next page."`
}

func labelNames(ctx context.Context, c *client, in labelNamesArgs) (*plugin.Result, error) {
	start, end, notes, defaulted, err := window(in.Start, in.End)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	names, warnings, err := c.api.LabelNames(rctx, selectors(in.Selector), start, end)
	if err != nil {
		return c.errorResult(ctx, in.Selector, err)
	}
	what := "label names"
	if in.Selector != "" {
		what += " on " + in.Selector
	}
	return pagedList(names, in.Offset, in.Limit, 200, what, "", narrowBySelector, windowNote(defaulted, len(names), notes), warnings)
}

type labelValuesArgs struct {
	Label    string `json:"label" description:"Label name, e.g. job, instance, namespace, code."`
	Selector string `json:"selector,omitempty" description:"Only values on series matching this selector, e.g. http_requests_total{job=\"checkout\"}."`
	Start    string `json:"start,omitempty" description:"Only series with data after this time: RFC 3339, Unix seconds or milliseconds, or \"now-30d\". Default: 24 hours before end."`
	End      string `json:"end,omitempty" description:"Only series with data before this time: RFC 3339, Unix seconds or milliseconds, or \"now\". Default now."`
	Limit    int    `json:"limit,omitempty" description:"Values per page, up to 1000 (default 200)."`
	Offset   int    `json:"offset,omitempty" description:"Values to skip, for the next page."`
}

func labelValues(ctx context.Context, c *client, in labelValuesArgs) (*plugin.Result, error) {
	if strings.TrimSpace(in.Label) == "" {
		return plugin.Errorf("label is required, e.g. job; use label_names to list them"), nil
	}
	start, end, notes, defaulted, err := window(in.Start, in.End)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	vals, warnings, err := c.api.LabelValues(rctx, in.Label, selectors(in.Selector), start, end)
	if err != nil {
		return c.errorResult(ctx, in.Selector, err)
	}
	items := make([]string, len(vals))
	for i, v := range vals {
		items[i] = string(v)
	}
	what := fmt.Sprintf("values of %s", in.Label)
	if in.Selector != "" {
		what += " on " + in.Selector
	}
	return pagedList(items, in.Offset, in.Limit, 200, what, "", narrowBySelector, windowNote(defaulted, len(items), notes), warnings)
}

type seriesArgs struct {
	Selector string `json:"selector" description:"Series selector, e.g. up{job=\"checkout\"} or {__name__=~\"http_.*\", code=\"500\"}."`
	Start    string `json:"start,omitempty" description:"Only series with data after this time: RFC 3339, Unix seconds or milliseconds, or \"now-30d\". Default: 24 hours before end."`
	End      string `json:"end,omitempty" description:"Only series with data before this time: RFC 3339, Unix seconds or milliseconds, or \"now\". Default now."`
	Limit    int    `json:"limit,omitempty" description:"At most this many series, up to 1000 (default: the plugin's max_series)."`
}

type seriesResult struct {
	Selector  string           `json:"selector"`
	Total     int              `json:"total"`
	Series    []model.LabelSet `json:"series"`
	Truncated *truncated       `json:"truncated,omitempty"`
	Notes     []string         `json:"notes,omitempty"`
}

func findSeries(ctx context.Context, c *client, in seriesArgs) (*plugin.Result, error) {
	if strings.TrimSpace(in.Selector) == "" {
		return plugin.Errorf("selector is required, e.g. up or http_requests_total{job=\"checkout\"}"), nil
	}
	start, end, notes, defaulted, err := window(in.Start, in.End)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	limit, err := ceiled("limit", in.Limit, c.maxSeries)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	sets, warnings, err := c.api.Series(rctx, []string{in.Selector}, start, end)
	if err != nil {
		return c.errorResult(ctx, in.Selector, err)
	}
	notes = windowNote(defaulted, len(sets), notes)
	shown, rest := page(sets, 0, limit)
	out := seriesResult{Selector: in.Selector, Total: len(sets), Series: shown, Notes: notes}
	if out.Series == nil {
		out.Series = []model.LabelSet{}
	}
	var b strings.Builder
	if len(sets) == 0 {
		fmt.Fprintf(&b, "no series match %s", in.Selector)
	} else {
		fmt.Fprintf(&b, "%s match %s", plural(len(sets), "series", "series"), in.Selector)
	}
	for _, s := range shown {
		b.WriteString("\n" + seriesName(model.Metric(s)))
	}
	if rest > 0 {
		b.WriteString("\n" + moreLine(rest, len(sets), "series", "Add label matchers to the selector, or raise limit."))
		out.Truncated = &truncated{Total: len(sets), Shown: len(shown), Limit: fmt.Sprintf("limit=%d", limit)}
	}
	return plugin.JSON(out, b.String()+notesText(notes)+warningsText(warnings))
}
