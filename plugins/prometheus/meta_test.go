package prometheus

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

type listOut struct {
	Total  int      `json:"total"`
	Offset int      `json:"offset"`
	Items  []string `json:"items"`
	Next   *int     `json:"next_offset"`
}

func TestListMetricsRegexAndPaging(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out listOut
	text := ok(t, b, "list_metrics", map[string]any{"start": at(0), "filter": "^(http|queue)_", "regex": true, "limit": 3}, &out)
	want := []string{"http_request_duration_seconds_bucket", "http_request_duration_seconds_count",
		"http_request_duration_seconds_sum", "http_requests_total", "queue_depth"}
	if out.Total != len(want) || !slices.Equal(out.Items, want[:3]) || out.Next == nil || *out.Next != 3 {
		t.Fatalf("page 1 = %+v", out)
	}
	mustContain(t, text, `5 metric names matching "^(http|queue)_" (showing 1–3)`, "… 2 more not shown; call again with offset=3")
	out = listOut{}
	ok(t, b, "list_metrics", map[string]any{"start": at(0), "filter": "^(http|queue)_", "regex": true, "limit": 3, "offset": 3}, &out)
	if !slices.Equal(out.Items, want[3:]) || out.Next != nil {
		t.Fatalf("page 2 = %+v", out)
	}
}

func TestListMetricsSubstringAndSelector(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out listOut
	ok(t, b, "list_metrics", map[string]any{"start": at(0), "filter": "MEMORY_usage"}, &out)
	if !slices.Equal(out.Items, []string{"memory_usage_bytes"}) {
		t.Fatalf("substring filter = %v", out.Items)
	}
	ok(t, b, "list_metrics", map[string]any{"start": at(0), "selector": `{job="cart"}`}, &out)
	if !slices.Equal(out.Items, []string{"http_requests_total"}) {
		t.Fatalf("selector = %v", out.Items)
	}
	text, _ := failed(t, b, "list_metrics", map[string]any{"start": at(0), "filter": "(", "regex": true})
	mustContain(t, text, "filter is not a valid regular expression")
}

func TestLabelNamesAndValues(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out listOut
	ok(t, b, "label_names", map[string]any{"start": at(0), "selector": "http_requests_total"}, &out)
	if !slices.Equal(out.Items, []string{"__name__", "code", "instance", "job"}) {
		t.Fatalf("label names = %v", out.Items)
	}
	// Paged like the other lists: a big server has thousands of label names.
	text := ok(t, b, "label_names", map[string]any{"start": at(0), "selector": "http_requests_total", "limit": 2, "offset": 1}, &out)
	if out.Total != 4 || !slices.Equal(out.Items, []string{"code", "instance"}) {
		t.Fatalf("label names page = %+v", out)
	}
	mustContain(t, text, "4 label names on http_requests_total (showing 2–3)", "1 more not shown; call again with offset=3")
	text = ok(t, b, "label_values", map[string]any{"start": at(0), "label": "job", "selector": "http_requests_total"}, &out)
	if !slices.Equal(out.Items, []string{"cart", "checkout"}) {
		t.Fatalf("job values = %v", out.Items)
	}
	mustContain(t, text, "2 values of job on http_requests_total", "cart\ncheckout")
	ok(t, b, "label_values", map[string]any{"label": "code", "selector": `http_requests_total{job="checkout"}`,
		"start": at(0), "end": at(600)}, &out)
	if !slices.Equal(out.Items, []string{"200", "500"}) {
		t.Fatalf("code values = %v", out.Items)
	}
	// The label tools have no filter argument to suggest.
	text = ok(t, b, "label_values", map[string]any{"start": at(0), "label": "queue", "limit": 2}, &out)
	mustContain(t, text, "28 more not shown; call again with offset=2, or narrow with a selector")
	if strings.Contains(text, "filter") {
		t.Errorf("suggests a filter label_values does not take:\n%s", text)
	}
	ok(t, b, "label_values", map[string]any{"start": at(0), "label": "queue", "limit": 2, "offset": 28}, &out)
	if out.Total != queues || !slices.Equal(out.Items, []string{"q28", "q29"}) {
		t.Fatalf("queue page = %+v", out)
	}
	text, _ = failed(t, b, "label_values", map[string]any{"start": at(0), "label": "not-a-label"})
	mustContain(t, text, `bad_data`, `invalid label name: "not-a-label"`)
}

func TestSeries(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out struct {
		Total     int              `json:"total"`
		Series    []model.LabelSet `json:"series"`
		Truncated *truncated       `json:"truncated"`
	}
	text := ok(t, b, "series", map[string]any{"start": at(0), "selector": `http_requests_total{code="200"}`}, &out)
	if out.Total != 2 || len(out.Series) != 2 || out.Series[0]["job"] != "cart" || out.Series[1]["job"] != "checkout" {
		t.Fatalf("series = %+v", out)
	}
	mustContain(t, text, `2 series match http_requests_total{code="200"}`,
		`http_requests_total{code="200", instance="cart-1", job="cart"}`)
	text = ok(t, b, "series", map[string]any{"start": at(0), "selector": "queue_depth", "limit": 10}, &out)
	if len(out.Series) != 10 || out.Truncated == nil || out.Truncated.Total != queues {
		t.Fatalf("truncated series = %+v", out)
	}
	mustContain(t, text, "… 20 more series not shown (30 in total)")
	text, _ = failed(t, b, "series", map[string]any{"start": at(0), "selector": `http_requests_total{code=}`})
	mustContain(t, text, "bad_data")
}

type metadataOut struct {
	Metric   string                   `json:"metric"`
	Family   string                   `json:"family"`
	Metadata map[string][]v1.Metadata `json:"metadata"`
}

// Metadata comes from live targets, so these wait for the exposition
// server's first scrape.
func TestMetricMetadata(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out metadataOut
	eventually(t, 15*time.Second, func() error {
		res := call(t, b, "metric_metadata", map[string]any{"metric": "app_request_seconds"})
		if res.IsError {
			return fmt.Errorf("%s", resultText(res))
		}
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil || len(out.Metadata) == 0 {
			return errNotYet
		}
		return nil
	})
	md := out.Metadata["app_request_seconds"]
	if len(md) != 1 || md[0].Type != v1.MetricTypeHistogram || md[0].Help != "Time taken to serve an app request." || md[0].Unit != "seconds" {
		t.Fatalf("metadata = %+v", out.Metadata)
	}
	text := ok(t, b, "metric_metadata", map[string]any{"metric": "app_request_seconds_bucket"}, &out)
	if out.Family != "app_request_seconds" {
		t.Fatalf("family = %q", out.Family)
	}
	mustContain(t, text, "app_request_seconds_bucket belongs to the metric family app_request_seconds",
		"histogram", "seconds", "Time taken to serve an app request.")
	text = ok(t, b, "metric_metadata", map[string]any{"metric": "app_orders_total"}, &out)
	mustContain(t, text, "counter", "Orders the app has processed.")
	text = ok(t, b, "metric_metadata", map[string]any{"metric": "queue_depth"}, &out)
	mustContain(t, text, "no metadata for queue_depth", "backfilled")
}

// Without a start, the listing tools look at the last 24 hours, not at all
// the data Prometheus stores: the backfilled series (2023) are outside it,
// and the answer says how to look further back.
func TestListingsDefaultToTheLastDay(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	for tool, args := range map[string]map[string]any{
		"series":       {"selector": "queue_depth"},
		"list_metrics": {"filter": "queue_depth"},
		"label_names":  {"selector": "queue_depth"},
		"label_values": {"label": "queue", "selector": "queue_depth"},
	} {
		var out struct {
			Total int      `json:"total"`
			Notes []string `json:"notes"`
		}
		text := ok(t, b, tool, args, &out)
		if out.Total != 0 {
			t.Errorf("%s without start found %d of the 2023 data", tool, out.Total)
		}
		mustContain(t, text, `only the last 24h before end was searched (the default); give start, e.g. "now-30d"`)
		args["start"] = at(0)
		if ok(t, b, tool, args, &out); out.Total == 0 {
			t.Errorf("%s from %s found nothing", tool, at(0))
		}
	}
}
