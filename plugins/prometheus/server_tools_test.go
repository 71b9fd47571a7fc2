package prometheus

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// TestExemplarsCarryTraceIDs reads the exemplar the exposition server
// attaches to app_orders_total once Prometheus has scraped it.
func TestExemplarsCarryTraceIDs(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var text string
	eventually(t, 15*time.Second, func() error {
		res := call(t, b, "exemplars", map[string]any{"query": "app_orders_total", "start": "now-5m"})
		text = resultText(res)
		if res.IsError {
			t.Fatalf("exemplars: %s", text)
		}
		if !strings.Contains(text, `trace_id="4bf92f3577b34da6"`) {
			return errNotYet
		}
		return nil
	})
	mustContain(t, text, "exemplars of 1 series", `app_orders_total{instance=`, "LABELS")
	text = ok(t, b, "exemplars", map[string]any{"query": "no_such_metric", "start": ms(0), "end": ms(600)}, nil)
	mustContain(t, text, "no exemplars", "exemplar-storage", "read as Unix milliseconds")
	failed(t, b, "exemplars", map[string]any{"query": "app_orders_total", "start": "now+10000y"})
}

func TestAlertmanagersConfigAndFlags(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var ams v1.AlertManagersResult
	eventually(t, 15*time.Second, func() error {
		res := call(t, b, "alertmanagers", nil)
		if err := json.Unmarshal(res.StructuredContent, &ams); err != nil {
			return err
		}
		if len(ams.Active) != 1 {
			return errNotYet
		}
		return nil
	})
	text := ok(t, b, "alertmanagers", nil, nil)
	mustContain(t, text, "1 active, 0 dropped", "active  http://127.0.0.1:9/api/v2/alerts")

	text = ok(t, b, "config", map[string]any{"filter": "dead"}, nil)
	mustContain(t, text, "scrape_configs:", "job_name: dead")
	if strings.Contains(text, "job_name: app") {
		t.Errorf("filter kept other jobs:\n%s", text)
	}
	mustContain(t, ok(t, b, "config", map[string]any{"filter": "no-such-text"}, nil), `no config line contains "no-such-text"`)

	var whole, first, second struct {
		YAML       string     `json:"yaml"`
		TotalLines int        `json:"total_lines"`
		NextOffset int        `json:"next_offset"`
		Truncated  *truncated `json:"truncated"`
	}
	ok(t, b, "config", nil, &whole)
	if whole.Truncated != nil || whole.TotalLines < 20 || strings.Count(whole.YAML, "\n")+1 != whole.TotalLines {
		t.Fatalf("whole config: %d lines, truncated %+v", whole.TotalLines, whole.Truncated)
	}
	text = ok(t, b, "config", map[string]any{"limit": 10}, &first)
	if first.Truncated == nil || first.Truncated.Shown != 10 || first.NextOffset != 10 || strings.Count(first.YAML, "\n") != 9 {
		t.Fatalf("first page = %+v", first)
	}
	mustContain(t, text, fmt.Sprintf("… %d more lines not shown (%d in total); call again with offset=10", whole.TotalLines-10, whole.TotalLines), "filter")
	ok(t, b, "config", map[string]any{"limit": 10, "offset": 10}, &second)
	if got := first.YAML + "\n" + second.YAML; !strings.HasPrefix(whole.YAML, got) {
		t.Errorf("pages do not continue each other:\n%s", got)
	}

	var flags map[string]string
	text = ok(t, b, "flags", map[string]any{"filter": "feature"}, &flags)
	if flags["enable-feature"] != "exemplar-storage" || len(flags) != 1 {
		t.Errorf("flags = %v\n%s", flags, text)
	}
	mustContain(t, text, "enable-feature  exemplar-storage")
}

func TestTargetsMetadata(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out struct {
		Total    int                 `json:"total"`
		Metadata []v1.MetricMetadata `json:"metadata"`
	}
	eventually(t, 15*time.Second, func() error {
		res := call(t, b, "targets_metadata", map[string]any{"metric": "app_request_seconds"})
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			return err
		}
		if out.Total != 1 {
			return errNotYet
		}
		return nil
	})
	text := ok(t, b, "targets_metadata", map[string]any{"metric": "app_request_seconds", "target": `{job="app"}`}, &out)
	mustContain(t, text, "1 entry", "app_request_seconds  app", "histogram  seconds  Time taken to serve an app request.")
	text = ok(t, b, "targets_metadata", map[string]any{"target": `{job="app"}`, "limit": 1}, &out)
	mustContain(t, text, "more entries not shown")
}
