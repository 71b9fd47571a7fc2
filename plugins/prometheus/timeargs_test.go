package prometheus

import (
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// ms is a time of the backfilled data as Unix milliseconds, the way
// JavaScript and log lines write it.
func ms(offset int) string { return strconv.FormatInt(int64(t0+offset)*1000, 10) }

// TestMillisecondTimesGiveTheRightAnswer sends millisecond timestamps through
// every tool that takes a time: each answers for the moment meant, and says
// how it read the time.
func TestMillisecondTimesGiveTheRightAnswer(t *testing.T) {
	t.Parallel()
	b := serveShared(t)

	var vec vectorOut
	text := ok(t, b, "query", map[string]any{"query": `http_requests_total{code="500",job="checkout"}`, "time": ms(300)}, &vec)
	if len(vec.Result) != 1 || vec.Result[0].Value != 300 {
		t.Fatalf("query at %s ms = %v, want 300", ms(300), vec.Result)
	}
	mustContain(t, text, "1 series at 2023-11-14T22:18:20Z", "note: time "+ms(300)+" was read as Unix milliseconds")

	var mat matrixOut
	text = ok(t, b, "query_range", map[string]any{"query": `http_requests_total{code="500"}`,
		"start": ms(0), "end": ms(120), "step": "30s"}, &mat)
	if len(mat.Result) != 1 || len(mat.Result[0].Values) != 5 || mat.Result[0].Values[4].Value != 120 {
		t.Fatalf("query_range in ms = %+v", mat.Result)
	}
	mustContain(t, text, "from 2023-11-14T22:13:20Z to 2023-11-14T22:15:20Z", "note: start "+ms(0)+" was read as Unix milliseconds",
		"note: end "+ms(120)+" was read as Unix milliseconds")

	var series struct {
		Total  int              `json:"total"`
		Series []model.LabelSet `json:"series"`
		Notes  []string         `json:"notes"`
	}
	text = ok(t, b, "series", map[string]any{"selector": `http_requests_total{code="200"}`, "start": ms(0), "end": ms(600)}, &series)
	if series.Total != 2 || len(series.Notes) != 2 {
		t.Fatalf("series between ms times = %+v\n%s", series, text)
	}

	var values struct {
		Items []string `json:"items"`
	}
	ok(t, b, "label_values", map[string]any{"label": "job", "selector": "http_requests_total", "start": ms(0), "end": ms(600)}, &values)
	if len(values.Items) != 2 {
		t.Fatalf("job values between ms times = %v", values.Items)
	}
}

// TestTimesOutOfRangeAreRefusedBeforeQuerying covers the years no answer can
// be written for: each is refused with the argument at fault and the way to
// write it, never run and never answered with "no series".
func TestTimesOutOfRangeAreRefusedBeforeQuerying(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	past9999 := strconv.FormatInt(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), 10)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"query", map[string]any{"query": "up", "time": "now+10000y"}, `time "now+10000y"`},
		{"query", map[string]any{"query": "up", "time": past9999}, `time "` + past9999 + `": as Unix seconds`},
		{"query", map[string]any{"query": "up", "time": "1700000000000000"}, "microseconds and nanoseconds are not accepted"},
		{"query", map[string]any{"query": "up", "time": "12024-05-01T00:00:00Z"}, "years past 9999 are out of range"},
		{"query_range", map[string]any{"query": "up", "start": "now-1h", "end": past9999}, `end "` + past9999 + `"`},
		{"query_range", map[string]any{"query": "up", "start": "1700000000000000"}, `start "1700000000000000"`},
		{"series", map[string]any{"selector": "up", "start": past9999}, `start "` + past9999 + `"`},
		{"series", map[string]any{"selector": "up", "end": "now+20000y"}, `end "now+20000y"`},
		{"series", map[string]any{"selector": "up", "start": at(600), "end": at(0)}, "is before start"},
		{"label_names", map[string]any{"start": "1e20"}, `start "1e20"`},
	} {
		text, _ := failed(t, b, tc.tool, tc.args)
		mustContain(t, text, tc.want)
	}
}

// TestEmptyRangeWithStepLongerThanRange blames the step, not the metric.
func TestEmptyRangeWithStepLongerThanRange(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	// Before t0 nothing exists; a 1h step over 5 minutes evaluates once.
	text := ok(t, b, "query_range", map[string]any{"query": `http_requests_total`,
		"start": at(-300), "end": at(-1), "step": "1h"}, nil)
	mustContain(t, text, "step 1h is longer than the range", "shorter than the range")
	if containsFold(text, "metric name") {
		t.Errorf("blames the metric name:\n%s", text)
	}
}

// TestEmptyRangeWithStepCoarserThanLookback blames a step that skips over
// the data, not the metric: evaluations every 3h, each seeing 5 minutes,
// miss ten minutes of samples between two of them.
func TestEmptyRangeWithStepCoarserThanLookback(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out struct {
		Step string `json:"step"`
	}
	text := ok(t, b, "query_range", map[string]any{"query": `queue_depth{queue="q00"}`,
		"start": at(-119 * 3600), "end": at(121 * 3600)}, &out)
	if out.Step != "3h" {
		t.Fatalf("step = %q, want the chosen 3h", out.Step)
	}
	mustContain(t, text, "no series at any evaluation time", "samples of the 5m before it", "step of 3h",
		"max_over_time(metric[3h])")
	if containsFold(text, "metric name") {
		t.Errorf("blames the metric name:\n%s", text)
	}
}
