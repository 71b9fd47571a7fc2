package prometheus

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

type vectorOut struct {
	ResultType string       `json:"resultType"`
	Result     model.Vector `json:"result"`
	Truncated  *truncated   `json:"truncated"`
}

type matrixOut struct {
	ResultType string       `json:"resultType"`
	Step       string       `json:"step"`
	Result     model.Matrix `json:"result"`
	Truncated  *truncated   `json:"truncated"`
	Notes      []string     `json:"notes"`
}

// byLabel indexes a vector's values by one label's value.
func byLabel(v model.Vector, label string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range v {
		out[string(s.Metric[model.LabelName(label)])] = float64(s.Value)
	}
	return out
}

func TestInstantQueryExactValues(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out vectorOut
	text := ok(t, b, "query", map[string]any{"query": `http_requests_total{job="checkout"}`, "time": at(300)}, &out)
	got := byLabel(out.Result, "code")
	if out.ResultType != "vector" || len(got) != 2 || got["200"] != 3000 || got["500"] != 300 {
		t.Fatalf("got %s %v", out.ResultType, got)
	}
	mustContain(t, text, "2 series at 2023-11-14T22:18:20Z", "VALUE", "3000", `http_requests_total{code="500", instance="checkout-1", job="checkout"}`)
}

func TestInstantQueryRateOfCounter(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out vectorOut
	text := ok(t, b, "query", map[string]any{
		"query": `sum by (code) (rate(http_requests_total{job="checkout"}[1m]))`, "time": at(300)}, &out)
	got := byLabel(out.Result, "code")
	if got["200"] != 10 || got["500"] != 1 {
		t.Fatalf("rate per code = %v, want 200→10, 500→1", got)
	}
	mustContain(t, text, "10  ", `{code="200"}`)
}

func TestInstantQueryHistogramQuantile(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out vectorOut
	text := ok(t, b, "query", map[string]any{
		"query": `histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{job="checkout"}[1m])))`,
		"time":  at(300)}, &out)
	if len(out.Result) != 1 || math.Abs(float64(out.Result[0].Value)-0.75) > 1e-9 {
		t.Fatalf("p99 = %v, want 0.75", out.Result)
	}
	mustContain(t, text, "0.75")
}

func TestInstantQueryScalarAndLargeValues(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	text := ok(t, b, "query", map[string]any{"query": "scalar(sum(queue_depth))", "time": at(0)}, nil)
	mustContain(t, text, "scalar 435 at 2023-11-14T22:13:20Z") // 0+1+…+29
	text = ok(t, b, "query", map[string]any{"query": "memory_usage_bytes", "time": at(600)}, nil)
	mustContain(t, text, "1115684864") // 1 GiB + 40 MiB, in full
	text = ok(t, b, "query", map[string]any{"query": "memory_usage_bytes / 3", "time": at(0)}, nil)
	mustContain(t, text, "357913941  ") // six significant digits, never exponent notation for it
}

func TestInstantQueryTruncatesToMaxSeries(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out vectorOut
	text := ok(t, b, "query", map[string]any{"query": "queue_depth", "time": at(0), "max_series": 5}, &out)
	if len(out.Result) != 5 || out.Truncated == nil || out.Truncated.Total != queues || out.Truncated.Shown != 5 {
		t.Fatalf("got %d series, truncated %+v", len(out.Result), out.Truncated)
	}
	mustContain(t, text, "30 series at", "… 25 more series not shown (30 in total)", "topk(10, ...)")
}

func TestInstantQueryDefaultMaxSeriesFromConfig(t *testing.T) {
	t.Parallel()
	b := serve(t, map[string]any{"url": sharedProm(t).url, "max_series": 3})
	var out vectorOut
	ok(t, b, "query", map[string]any{"query": "queue_depth", "time": at(0)}, &out)
	if len(out.Result) != 3 || out.Truncated.Limit != "max_series=3" {
		t.Fatalf("got %d series, %+v", len(out.Result), out.Truncated)
	}
}

func TestInstantQueryEmptyResult(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	text := ok(t, b, "query", map[string]any{"query": "no_such_metric", "time": at(0)}, nil)
	mustContain(t, text, "no series match", "list_metrics")
}

func TestRangeQueryExactPoints(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out matrixOut
	text := ok(t, b, "query_range", map[string]any{
		"query": `http_requests_total{code="500"}`, "start": at(0), "end": at(120), "step": "30s"}, &out)
	if len(out.Result) != 1 || out.Step != "30s" {
		t.Fatalf("got %d series, step %s", len(out.Result), out.Step)
	}
	var vals []float64
	for _, p := range out.Result[0].Values {
		vals = append(vals, float64(p.Value))
	}
	if want := []float64{0, 30, 60, 90, 120}; !equalFloats(vals, want) {
		t.Fatalf("values %v, want %v", vals, want)
	}
	mustContain(t, text, "1 series from 2023-11-14T22:13:20Z to 2023-11-14T22:15:20Z, step 30s",
		"LAST", "120", "2023-11-14T22:14:20Z  60")
}

func TestRangeQueryChoosesStepWithinMaxPoints(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out matrixOut
	text := ok(t, b, "query_range", map[string]any{
		"query": `sum(rate(http_requests_total[1m]))`, "start": at(60), "end": at(600), "max_points": 10}, &out)
	if out.Step != "1m" || len(out.Result) != 1 || len(out.Result[0].Values) != 10 {
		t.Fatalf("step %s, %d points", out.Step, len(out.Result[0].Values))
	}
	for _, p := range out.Result[0].Values {
		if float64(p.Value) != 13 { // 10 + 1 + 2 per second
			t.Fatalf("rate at %v = %v, want 13", p.Timestamp, p.Value)
		}
	}
	mustContain(t, text, "step 1m", "13")
}

// A step the plugin chooses ends the points at end, so LAST is the latest
// value: 610s at 5m steps would otherwise stop 10s short of it.
func TestRangeQueryChosenStepEndsAtEnd(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out matrixOut
	text := ok(t, b, "query_range", map[string]any{
		"query": `http_requests_total{code="200", job="checkout"}`, "start": at(-10), "end": at(600), "max_points": 5}, &out)
	if out.Step != "5m" || len(out.Result) != 1 {
		t.Fatalf("step %s, %d series", out.Step, len(out.Result))
	}
	vals := out.Result[0].Values
	if last := vals[len(vals)-1]; last.Timestamp.Unix() != t0+600 || float64(last.Value) != 6000 {
		t.Fatalf("last point %v at %v, want 6000 at %s", last.Value, last.Timestamp.Time().UTC(), at(600))
	}
	mustContain(t, text, "from "+at(0)+" to "+at(600)+", step 5m", "note: start moved to "+at(0))
}

func TestRangeQueryRaisesTooFineStep(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out matrixOut
	text := ok(t, b, "query_range", map[string]any{
		"query": `queue_depth{queue="q07"}`, "start": at(0), "end": at(600), "step": "1s", "max_points": 11}, &out)
	if out.Step != "1m" || len(out.Result[0].Values) != 11 || len(out.Notes) != 1 {
		t.Fatalf("step %s, %d points, notes %v", out.Step, len(out.Result[0].Values), out.Notes)
	}
	mustContain(t, text, "note: step raised from 1s to 1m0s to keep each series within max_points=11")
}

func TestRangeQueryTruncatesSeries(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out matrixOut
	text := ok(t, b, "query_range", map[string]any{
		"query": "queue_depth", "start": at(0), "end": at(600), "max_series": 4, "max_points": 3}, &out)
	if len(out.Result) != 4 || out.Truncated == nil || out.Truncated.Total != queues {
		t.Fatalf("got %d series, %+v", len(out.Result), out.Truncated)
	}
	mustContain(t, text, "… 26 more series not shown (30 in total)")
}

func TestRangeQueryDefaultsToLastHour(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out struct {
		Start, End time.Time
		Step       string
	}
	ok(t, b, "query_range", map[string]any{"query": "vector(1)"}, &out)
	if d := out.End.Sub(out.Start); d != time.Hour || out.Step != "1m" {
		t.Fatalf("range %s step %s, want 1h at 1m with max_points 120", d, out.Step)
	}
	if time.Since(out.End) > time.Minute {
		t.Fatalf("end %s is not now", out.End)
	}
}

func TestRangeQueryArgumentErrors(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"query": "up", "start": at(60), "end": at(0)}, "must be before end"},
		{map[string]any{"query": "up", "start": "yesterday"}, `start "yesterday": not a time; use RFC 3339`},
		{map[string]any{"query": "up", "step": "fast"}, `step "fast"`},
		{map[string]any{"query": " "}, "query is empty"},
	} {
		text, _ := failed(t, b, "query_range", tc.args)
		mustContain(t, text, tc.want)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRawSamplesOfRangeSelector(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	text := ok(t, b, "query", map[string]any{"query": `http_requests_total{code="500"}[1m]`, "time": at(60)}, nil)
	mustContain(t, text, "1 series of raw samples", "(5 samples)", "2023-11-14T22:14:20Z  60")
	if strings.Count(text, "2023-11-14T") != 5 {
		t.Fatalf("want 5 samples:\n%s", text)
	}
}

// A range query's structured content holds at most structuredPointBudget
// points, the newest of each series, and says it was cut and how to get
// every point; the text's summary still covers them all.
func TestRangeQueryCapsStructuredPoints(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out matrixOut
	text := ok(t, b, "query_range", map[string]any{
		"query": "queue_depth", "start": at(0), "end": at(600), "step": "1s", "max_points": 601, "max_series": queues}, &out)
	total := 0
	for _, s := range out.Result {
		total += len(s.Values)
		if len(s.Values) != structuredPointBudget/queues || s.Values[len(s.Values)-1].Timestamp.Unix() != t0+600 {
			t.Fatalf("%s: %d points ending at %v, want the newest %d", s.Metric, len(s.Values), s.Values[len(s.Values)-1].Timestamp, structuredPointBudget/queues)
		}
	}
	if len(out.Result) != queues || total > structuredPointBudget {
		t.Errorf("%d series, %d points in the structured content; want %d series within %d points", len(out.Result), total, queues, structuredPointBudget)
	}
	mustContain(t, text, "the structured content keeps the newest 66 points of each series", "use a larger step, a shorter range or fewer series")
	if len(out.Notes) == 0 || !strings.Contains(strings.Join(out.Notes, " "), "newest 66 points") {
		t.Errorf("notes = %q", out.Notes)
	}
}

// max_series and limit have a ceiling, and a value past it, or below zero,
// is refused before Prometheus is asked.
func TestCountArgumentsHaveACeiling(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"query", map[string]any{"query": "up", "max_series": 1001}, "max_series must be at most 1000, got 1001"},
		{"query_range", map[string]any{"query": "up", "max_series": 5000}, "max_series must be at most 1000, got 5000"},
		{"query_range", map[string]any{"query": "up", "max_series": -1}, "max_series must be positive, got -1"},
		{"series", map[string]any{"selector": "up", "limit": 1001}, "limit must be at most 1000, got 1001"},
		{"list_metrics", map[string]any{"limit": 100000}, "limit must be at most 1000, got 100000"},
		{"list_metrics", map[string]any{"limit": -5}, "limit must be positive, got -5"},
	} {
		text, _ := failed(t, b, tc.tool, tc.args)
		mustContain(t, text, tc.want)
	}
}
