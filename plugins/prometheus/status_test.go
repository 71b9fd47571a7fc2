package prometheus

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

type targetsOut struct {
	Up, Down, Unknown int
	Targets           []v1.ActiveTarget
}

func TestTargetsHealthAndLastError(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out targetsOut
	// The three targets report their health after their first scrape.
	eventually(t, 15*time.Second, func() error {
		res := call(t, b, "targets", nil)
		out = targetsOut{}
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			return err
		}
		if out.Up != 2 || out.Down != 1 {
			return fmt.Errorf("%w: %d up, %d down, %d unknown", errNotYet, out.Up, out.Down, out.Unknown)
		}
		return nil
	})
	if out.Targets[0].ScrapePool != "dead" || !strings.Contains(out.Targets[0].LastError, "connection refused") {
		t.Fatalf("down target first with its error, got %+v", out.Targets[0])
	}
	var raw struct {
		Targets []map[string]any `json:"targets"`
	}
	ok(t, b, "targets", nil, &raw)
	for _, tg := range raw.Targets {
		if _, found := tg["discoveredLabels"]; found || tg["labels"] == nil {
			t.Errorf("target carries its discovered labels, or lacks its labels: %v", tg)
		}
	}
	text := ok(t, b, "targets", map[string]any{"health": "down"}, &out)
	if len(out.Targets) != 1 {
		t.Fatalf("down targets = %+v", out.Targets)
	}
	mustContain(t, text, "3 targets: 2 up, 1 down, 0 unknown; 1 down", "HEALTH", "LAST ERROR",
		"down    dead", "127.0.0.1:1", "connection refused")
	if strings.Contains(text, "prometheus") {
		t.Errorf("health filter kept an up target:\n%s", text)
	}
	text = ok(t, b, "targets", map[string]any{"job": "prometheus"}, &out)
	if len(out.Targets) != 1 || out.Targets[0].Health != v1.HealthGood {
		t.Fatalf("job filter = %+v", out.Targets)
	}
	mustContain(t, text, "1 target: 1 up, 0 down, 0 unknown", "up ", "ago")
}

type alertsOut struct {
	Total  int           `json:"total"`
	Alerts []activeAlert `json:"alerts"`
}

func TestAlertsFiringAndPending(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out alertsOut
	eventually(t, 15*time.Second, func() error {
		out = alertsOut{}
		res := call(t, b, "alerts", nil)
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			return err
		}
		if out.Total != 2 {
			return fmt.Errorf("%w: %d alerts", errNotYet, out.Total)
		}
		return nil
	})
	fire, pend := out.Alerts[0], out.Alerts[1]
	if fire.Name != "CheckoutDown" || fire.State != "firing" || fire.Labels["severity"] != "page" ||
		fire.Annotations["summary"] != "Checkout is failing" || fire.Expr != "vector(1) > 0" {
		t.Fatalf("firing alert = %+v", fire)
	}
	if pend.Name != "SlowBurn" || pend.State != "pending" || pend.For != "1h" {
		t.Fatalf("pending alert = %+v", pend)
	}
	text := ok(t, b, "alerts", map[string]any{"state": "firing"}, &out)
	if out.Total != 1 {
		t.Fatalf("firing filter = %+v", out)
	}
	mustContain(t, text, "1 active alert (state firing)", "FIRING CheckoutDown since", "value 1",
		`severity="page"`, "summary: Checkout is failing", "description: More than half of checkout requests fail.",
		"rule: vector(1) > 0")
	text = ok(t, b, "alerts", map[string]any{"name": "nothing-like-this"}, &out)
	mustContain(t, text, "no active alerts")
}

func TestRulesWithState(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out struct {
		Total int        `json:"total"`
		Rules []ruleInfo `json:"rules"`
	}
	eventually(t, 15*time.Second, func() error {
		res := call(t, b, "rules", map[string]any{"type": "alerting", "state": "firing"})
		out.Rules = nil
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			return err
		}
		if len(out.Rules) != 1 {
			return errNotYet
		}
		return nil
	})
	text := ok(t, b, "rules", map[string]any{"group": "checkout"}, &out)
	if out.Total != 4 {
		t.Fatalf("rules = %+v", out.Rules)
	}
	states := map[string]string{}
	for _, r := range out.Rules {
		states[r.Name] = r.Type + "/" + r.State + "/" + r.Health
	}
	want := map[string]string{"CheckoutDown": "alerting/firing/ok", "SlowBurn": "alerting/pending/ok",
		"NeverFires": "alerting/inactive/ok", "job:http_requests:rate5m": "recording//ok"}
	for name, w := range want {
		if states[name] != w {
			t.Errorf("%s = %q, want %q", name, states[name], w)
		}
	}
	mustContain(t, text, "4 rules in 1 group", "group checkout (", "rules.yml)", "firing (1)",
		"recording  job:http_requests:rate5m", "sum by (job) (rate(http_requests_total[5m]))", "vector(2) > 0 for 1h")
	ok(t, b, "rules", map[string]any{"type": "recording", "group": "checkout"}, &out)
	if out.Total != 1 || out.Rules[0].Name != "job:http_requests:rate5m" {
		t.Fatalf("recording filter = %+v", out.Rules)
	}
}

// TestRulesErrorsDoNotPadTheTable keeps a long last error out of the table:
// it follows the group, and no row is padded to its width.
func TestRulesErrorsDoNotPadTheTable(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out struct {
		Rules []ruleInfo `json:"rules"`
	}
	eventually(t, 15*time.Second, func() error {
		res := call(t, b, "rules", map[string]any{"group": "broken"})
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			return err
		}
		if len(out.Rules) != 1 || out.Rules[0].LastError == "" {
			return errNotYet
		}
		return nil
	})
	text := ok(t, b, "rules", nil, &out)
	mustContain(t, text, "5 rules in 2 groups, 1 with errors", "error of broken:up: found duplicate series")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "error of ") {
			continue
		}
		if len(line) > 150 {
			t.Errorf("padded line (%d chars): %q", len(line), line)
		}
	}
	if spaces := strings.Count(text, " "); spaces*3 > len(text) {
		t.Errorf("%d of %d characters are spaces:\n%s", spaces, len(text), text)
	}
}

func TestTSDBStatusAndBuildInfo(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	var out statusResult
	var text string
	// The head block fills with the first scrape; backfilled data is in blocks.
	eventually(t, 15*time.Second, func() error {
		out = statusResult{}
		text = ok(t, b, "tsdb_status", map[string]any{"limit": 3}, &out)
		if out.TSDB == nil || out.TSDB.HeadStats.NumSeries == 0 {
			return errNotYet
		}
		return nil
	})
	if !strings.HasPrefix(out.Build.Version, "2.") || out.Runtime == nil || out.Runtime.StorageRetention != "100y" || out.TSDB == nil {
		t.Fatalf("status = %+v", out)
	}
	// Prometheus caches its cardinality lists for 30s from startup, so they
	// may still be empty here; the limit must hold either way.
	if n := len(out.TSDB.SeriesCountByMetricName); n > 3 {
		t.Fatalf("top metrics = %v", out.TSDB.SeriesCountByMetricName)
	}
	mustContain(t, text, "Prometheus "+out.Build.Version, "storage retention 100y", "head block:", "series, ")
}

func TestStatTable(t *testing.T) {
	var b strings.Builder
	statTable(&b, "metrics with the most series", "SERIES", []v1.Stat{{Name: "up", Value: 3}, {Name: "http_requests_total", Value: 120}})
	want := "\n\nmetrics with the most series:\nNAME                 SERIES\nup                   3\nhttp_requests_total  120"
	if b.String() != want {
		t.Errorf("statTable:\n%q\nwant\n%q", b.String(), want)
	}
}
