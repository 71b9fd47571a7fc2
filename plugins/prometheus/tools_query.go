package prometheus

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/toolgate/toolgate/sdk/plugin"
)

const (
	descQuery = "Run a PromQL query at one instant and get the current value of each matching series " +
		"(a table of values). Use it for \"what is X right now\": error rate, p99/p95 latency with histogram_quantile, " +
		"rate() of a counter, memory or CPU usage, count of pods up. For a trend over time use query_range."
	descQueryRange = "Run a PromQL query over a time range (like a graph) and get min/avg/max/last and a trend per series, " +
		"plus the points. Use it for \"over the last hour\", \"since yesterday\", spikes and history, e.g. p99 latency " +
		"of a service over time. The step is chosen from the range when not given, at most max_points per series."
)

type queryArgs struct {
	Query     string `json:"query" description:"PromQL expression, e.g. sum by (code) (rate(http_requests_total{job=\"checkout\"}[5m])) or histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket[5m])))"`
	Time      string `json:"time,omitempty" description:"Evaluation time: RFC 3339, Unix seconds or milliseconds, \"now\" or \"now-1h\". Default now."`
	MaxSeries int    `json:"max_series,omitempty" description:"At most this many series in the answer, up to 1000 (default: the plugin's max_series)."`
}

type rangeArgs struct {
	Query     string `json:"query" description:"PromQL expression to evaluate at each step, e.g. histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{job=\"checkout\"}[5m])))"`
	Start     string `json:"start,omitempty" description:"Start of the range: RFC 3339, Unix seconds or milliseconds, \"now-1h\", \"now-7d\". Default: one hour before end."`
	End       string `json:"end,omitempty" description:"End of the range: RFC 3339, Unix seconds or milliseconds, \"now\" or \"now-30m\". Default now."`
	Step      string `json:"step,omitempty" description:"Resolution, e.g. \"15s\", \"1m\", \"1h\". Default: the finest step that keeps each series within max_points."`
	MaxSeries int    `json:"max_series,omitempty" description:"At most this many series in the answer, up to 1000 (default: the plugin's max_series)."`
	MaxPoints int    `json:"max_points,omitempty" description:"At most this many points per series (default: the plugin's max_points); a finer step is coarsened to fit."`
}

// queryResult is the structured content of both query tools.
type queryResult struct {
	ResultType string      `json:"resultType"`
	Query      string      `json:"query"`
	Time       *time.Time  `json:"time,omitempty"`
	Start      *time.Time  `json:"start,omitempty"`
	End        *time.Time  `json:"end,omitempty"`
	Step       string      `json:"step,omitempty"`
	Result     model.Value `json:"result"`
	Warnings   []string    `json:"warnings,omitempty"`
	Truncated  *truncated  `json:"truncated,omitempty"`
	Notes      []string    `json:"notes,omitempty"`
}

func limitOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// maxCount is the most series or names one call may ask for: a model reads
// the answer, and more than this is better narrowed by the query.
const maxCount = 1000

// LimitError is a max_series or limit argument out of bounds.
type LimitError struct {
	Arg   string
	Value int
}

func (e *LimitError) Error() string {
	if e.Value < 0 {
		return fmt.Sprintf("%s must be positive, got %d", e.Arg, e.Value)
	}
	return fmt.Sprintf("%s must be at most %d, got %d: narrow the query instead (label matchers, aggregation, topk)", e.Arg, maxCount, e.Value)
}

// ceiled is limitOr for an argument with a ceiling: given, it must lie in
// 1..maxCount; 0 means def.
func ceiled(arg string, n, def int) (int, error) {
	if n < 0 || n > maxCount {
		return 0, &LimitError{Arg: arg, Value: n}
	}
	return limitOr(n, def), nil
}

func instantQuery(ctx context.Context, c *client, in queryArgs) (*plugin.Result, error) {
	if strings.TrimSpace(in.Query) == "" {
		return plugin.Errorf("query is empty: give a PromQL expression such as up or rate(http_requests_total[5m])"), nil
	}
	now := time.Now().UTC()
	ts, note, err := parseTime("time", in.Time, now, now)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	notes := appendNote(nil, note)
	maxSeries, err := ceiled("max_series", in.MaxSeries, c.maxSeries)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	val, warnings, err := c.api.Query(rctx, in.Query, ts, c.queryOpts()...)
	if err != nil {
		return c.errorResult(ctx, in.Query, err)
	}
	out := queryResult{ResultType: val.Type().String(), Query: in.Query, Time: &ts, Warnings: warnings, Notes: notes}
	var text string
	switch v := val.(type) {
	case model.Vector:
		text, out.Result, out.Truncated = vectorText(v, ts, maxSeries)
	case model.Matrix:
		text, out.Result, out.Truncated = matrixText(v, maxSeries, c.maxPoints)
	case *model.Scalar:
		out.Result = v
		text = fmt.Sprintf("scalar %s at %s", formatValue(float64(v.Value)), formatModelTime(v.Timestamp))
	case *model.String:
		out.Result = v
		text = fmt.Sprintf("string %q at %s", v.Value, formatModelTime(v.Timestamp))
	default:
		out.Result = val
		text = val.String()
	}
	return plugin.JSON(out, text+notesText(notes)+warningsText(warnings))
}

func sampleValue(s *model.Sample) string {
	if s.Histogram != nil {
		return fmt.Sprintf("histogram(count=%s, sum=%s)", formatValue(float64(s.Histogram.Count)), formatValue(float64(s.Histogram.Sum)))
	}
	return formatValue(float64(s.Value))
}

func vectorText(v model.Vector, ts time.Time, maxSeries int) (string, model.Vector, *truncated) {
	if len(v) == 0 {
		return fmt.Sprintf("no series match at %s (empty result). Check the metric name and labels with list_metrics or series.", formatTime(ts)), v, nil
	}
	shown, rest := page(v, 0, maxSeries)
	t := newTable("VALUE", "SERIES")
	for _, s := range shown {
		t.row(sampleValue(s), seriesName(s.Metric))
	}
	text := fmt.Sprintf("%s at %s\n%s", plural(len(v), "series", "series"), formatTime(ts), t)
	if rest == 0 {
		return text, v, nil
	}
	text += "\n" + moreLine(rest, len(v), "series", narrowSeriesHint)
	return text, shown, &truncated{Total: len(v), Shown: len(shown), Limit: fmt.Sprintf("max_series=%d", maxSeries)}
}

// matrixText renders the raw samples a range selector (metric[5m]) returns,
// keeping the newest maxPoints of each series.
func matrixText(m model.Matrix, maxSeries, maxPoints int) (string, model.Matrix, *truncated) {
	if len(m) == 0 {
		return "no series match (empty result)", m, nil
	}
	shown, rest := page(m, 0, maxSeries)
	var b strings.Builder
	fmt.Fprintf(&b, "%s of raw samples", plural(len(m), "series", "series"))
	cut := false
	out := make(model.Matrix, len(shown))
	for i, s := range shown {
		vals := s.Values
		if len(vals) > maxPoints {
			vals, cut = vals[len(vals)-maxPoints:], true
		}
		out[i] = &model.SampleStream{Metric: s.Metric, Values: vals, Histograms: s.Histograms}
		t := newTable("  TIME", "VALUE")
		for _, p := range vals {
			t.row("  "+formatModelTime(p.Timestamp), formatValue(float64(p.Value)))
		}
		fmt.Fprintf(&b, "\n%s (%s)\n%s", seriesName(s.Metric), plural(len(s.Values), "sample", "samples"), t)
	}
	var tr *truncated
	if cut {
		fmt.Fprintf(&b, "\nonly the newest %d samples of each series are shown; use a shorter range in the selector or query_range.", maxPoints)
		tr = &truncated{Total: len(m), Shown: len(shown), Limit: fmt.Sprintf("max_points=%d", maxPoints)}
	}
	if rest > 0 {
		b.WriteString("\n" + moreLine(rest, len(m), "series", narrowSeriesHint))
		tr = &truncated{Total: len(m), Shown: len(shown), Limit: fmt.Sprintf("max_series=%d", maxSeries)}
	}
	return b.String(), out, tr
}

func rangeQuery(ctx context.Context, c *client, in rangeArgs) (*plugin.Result, error) {
	if strings.TrimSpace(in.Query) == "" {
		return plugin.Errorf("query is empty: give a PromQL expression such as rate(http_requests_total[5m])"), nil
	}
	start, end, notes, err := parseRange(in.Start, in.End)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	maxPoints := limitOr(in.MaxPoints, c.maxPoints)
	if maxPoints < 2 || in.MaxPoints < 0 {
		return plugin.Errorf("max_points must be at least 2, got %d", in.MaxPoints), nil
	}
	maxSeries, err := ceiled("max_series", in.MaxSeries, c.maxSeries)
	if err != nil {
		return plugin.Errorf("%v", err), nil
	}
	span := end.Sub(start)
	step := chooseStep(span, maxPoints)
	chosen := true
	if in.Step != "" {
		asked, err := parseStep(in.Step)
		if err != nil {
			return plugin.Errorf("%v", err), nil
		}
		if pointsIn(span, asked) <= maxPoints {
			step, chosen = asked, false
		} else {
			notes = append(notes, fmt.Sprintf("step raised from %s to %s to keep each series within max_points=%d", asked, step, maxPoints))
		}
	}
	// Prometheus evaluates at start, start+step, …: with a step of its own
	// choosing that does not divide the range, the last point would fall
	// up to a step before end, and LAST would not be the latest value.
	if aligned := end.Add(-span / step * step); chosen && !aligned.Equal(start) {
		start = aligned
		notes = append(notes, fmt.Sprintf("start moved to %s, a whole number of %s steps before end, so that the last point is at end",
			formatTime(start), model.Duration(step)))
	}
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	val, warnings, err := c.api.QueryRange(rctx, in.Query, v1.Range{Start: start, End: end, Step: step}, c.queryOpts()...)
	if err != nil {
		return c.errorResult(ctx, in.Query, err)
	}
	m, ok := val.(model.Matrix)
	if !ok {
		return plugin.Errorf("Prometheus answered a range query with a %s instead of a matrix", val.Type()), nil
	}
	shown, rest := page(m, 0, maxSeries)
	text := rangeText(m, shown, start, end, step)
	kept, cut := newestPoints(shown, structuredPointBudget)
	if cut > 0 {
		notes = append(notes, fmt.Sprintf("the structured content keeps the newest %d points of each series (%d left out, %d points at most in all); "+
			"for every point, use a larger step, a shorter range or fewer series", len(kept[0].Values), cut, structuredPointBudget))
	}
	out := queryResult{ResultType: "matrix", Query: in.Query, Start: &start, End: &end, Step: model.Duration(step).String(),
		Result: kept, Warnings: warnings, Notes: notes}
	if rest > 0 {
		text += "\n" + moreLine(rest, len(m), "series", narrowSeriesHint)
		out.Truncated = &truncated{Total: len(m), Shown: len(shown), Limit: fmt.Sprintf("max_series=%d", maxSeries)}
	}
	return plugin.JSON(out, text+notesText(notes)+warningsText(warnings))
}

// structuredPointBudget bounds the points of a range query's structured
// content, over all its series: the largest default answer (max_series
// series of max_points points) would otherwise carry thousands of points, a
// few hundred kilobytes the client must take in whole.
const structuredPointBudget = 2000

// newestPoints keeps, of each series, its newest points, as many for each
// as budget allows (two at least, so a trend stays visible), and says how
// many points it left out.
func newestPoints(m model.Matrix, budget int) (model.Matrix, int) {
	total := 0
	for _, s := range m {
		total += len(s.Values)
	}
	if total <= budget {
		return m, 0
	}
	each := max(budget/len(m), 2)
	out := make(model.Matrix, len(m))
	cut := 0
	for i, s := range m {
		c := *s
		if len(c.Values) > each {
			cut += len(c.Values) - each
			c.Values = c.Values[len(c.Values)-each:]
		}
		out[i] = &c
	}
	return out, cut
}

// lookback is how far back Prometheus looks for a sample at each evaluation
// time, unless its --query.lookback-delta says otherwise.
const lookback = 5 * time.Minute

// pointBudget is how many values the text lists before it shows only the
// summary; the structured content always has every point.
const pointBudget = 300

func rangeText(all, shown model.Matrix, start, end time.Time, step time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s from %s to %s, step %s", plural(len(all), "series", "series"),
		formatTime(start), formatTime(end), model.Duration(step))
	switch {
	case len(all) == 0 && step > end.Sub(start):
		fmt.Fprintf(&b, "\nno series at the one evaluation time %s (empty result). The step %s is longer than the range %s, "+
			"so the query was evaluated only at the start; give a step shorter than the range, or use query for one instant.",
			formatTime(start), model.Duration(step), model.Duration(end.Sub(start)))
		return b.String()
	case len(all) == 0 && step > lookback:
		fmt.Fprintf(&b, "\nno series at any evaluation time (empty result). Each evaluation sees only the samples of the %s before it "+
			"(Prometheus' lookback, by default), so at a step of %s most of the range is never looked at. "+
			"Shorten the range for a finer step, or look at every sample with a range function, e.g. max_over_time(metric[%s]).",
			model.Duration(lookback), model.Duration(step), model.Duration(step))
		return b.String()
	case len(all) == 0:
		b.WriteString("\nno series match in this range (empty result). Check the metric name and labels with list_metrics or series.")
		return b.String()
	}
	t := newTable("SERIES", "LAST", "MIN", "AVG", "MAX", "TREND")
	total := 0
	for _, s := range shown {
		vals := make([]float64, len(s.Values))
		for i, p := range s.Values {
			vals[i] = float64(p.Value)
		}
		total += len(vals)
		lo, avg, hi := stats(vals)
		last := "-"
		if len(vals) > 0 {
			last = formatValue(vals[len(vals)-1])
		}
		t.row(seriesName(s.Metric), last, lo, avg, hi, sparkline(vals))
	}
	b.WriteString("\n" + t.String())
	if total > pointBudget {
		b.WriteString("\n(points are in the structured content; ask for fewer series or a larger step to list them here)")
		return b.String()
	}
	for _, s := range shown {
		pt := newTable("  TIME", "VALUE")
		for _, p := range s.Values {
			pt.row("  "+formatModelTime(p.Timestamp), formatValue(float64(p.Value)))
		}
		fmt.Fprintf(&b, "\n\n%s\n%s", seriesName(s.Metric), pt)
	}
	return b.String()
}

// stats returns min, average and max of the finite values, formatted.
func stats(vals []float64) (lo, avg, hi string) {
	mn, mx, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		mn, mx, sum, n = math.Min(mn, v), math.Max(mx, v), sum+v, n+1
	}
	if n == 0 {
		return "-", "-", "-"
	}
	mean := sum / float64(n)
	if math.IsInf(mean, 0) {
		// Finite values near ±MaxFloat64 overflow their sum, not their mean.
		mean = 0
		for _, v := range vals {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				mean += v / float64(n)
			}
		}
	}
	return formatValue(mn), formatValue(mean), formatValue(mx)
}
