package prometheus

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/toolgate/toolgate/sdk/plugin"
)

const (
	descTargets = "List scrape targets with their health (up, down, unknown), last scrape, duration and last error. " +
		"Use it for \"which targets are down\", \"is the exporter being scraped\", \"why is up == 0\"."
	descAlerts = "List active alerts (firing and pending) with labels, annotations (summary, description), value, " +
		"since when, and the alerting rule's expression — to answer \"what is alerting\" and \"why is this alert firing\"."
	descRules = "List alerting and recording rules by group with their state (firing, pending, inactive), health, " +
		"last evaluation and last error, and the PromQL each one evaluates."
	descStatus = "Show the Prometheus server's status: version and build info, start time, storage retention, " +
		"TSDB head stats (series, chunks, time span) and the highest-cardinality metrics and labels."
)

type targetsArgs struct {
	Health string `json:"health,omitempty" enum:"up,down,unknown" description:"Only targets in this health state, e.g. down for failing scrapes. Default: all."`
	Job    string `json:"job,omitempty" description:"Only targets of this job (scrape pool)."`
	Limit  int    `json:"limit,omitempty" description:"At most this many targets (default 100)."`
}

type targetsResult struct {
	Up        int            `json:"up"`
	Down      int            `json:"down"`
	Unknown   int            `json:"unknown"`
	Dropped   int            `json:"dropped"`
	Targets   []scrapeTarget `json:"targets"`
	Truncated *truncated     `json:"truncated,omitempty"`
}

// scrapeTarget is a target as the answer carries it: without the labels
// discovery found before relabelling, which with Kubernetes discovery hold
// every label and annotation of the pod (a whole last-applied manifest
// among them) and would fill an assistant's context a target at a time.
type scrapeTarget struct {
	v1.ActiveTarget
	DiscoveredLabels map[string]string `json:"discoveredLabels,omitempty"`
}

// healthOrder puts the targets that need attention first.
var healthOrder = map[v1.HealthStatus]int{v1.HealthBad: 0, v1.HealthUnknown: 1, v1.HealthGood: 2}

func listTargets(ctx context.Context, c *client, in targetsArgs) (*plugin.Result, error) {
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := c.api.Targets(rctx)
	if err != nil {
		return c.errorResult(ctx, "", err)
	}
	out := targetsResult{Dropped: len(res.Dropped), Targets: []scrapeTarget{}}
	for _, t := range res.Active {
		if in.Job != "" && t.ScrapePool != in.Job && string(t.Labels["job"]) != in.Job {
			continue
		}
		switch t.Health {
		case v1.HealthGood:
			out.Up++
		case v1.HealthBad:
			out.Down++
		default:
			out.Unknown++
		}
		if in.Health == "" || string(t.Health) == in.Health {
			out.Targets = append(out.Targets, scrapeTarget{ActiveTarget: t})
		}
	}
	sort.SliceStable(out.Targets, func(i, j int) bool {
		a, b := out.Targets[i], out.Targets[j]
		if healthOrder[a.Health] != healthOrder[b.Health] {
			return healthOrder[a.Health] < healthOrder[b.Health]
		}
		if a.ScrapePool != b.ScrapePool {
			return a.ScrapePool < b.ScrapePool
		}
		return a.ScrapeURL < b.ScrapeURL
	})
	matched := len(out.Targets)
	limit := limitOr(in.Limit, 100)
	shown, rest := page(out.Targets, 0, limit)
	out.Targets = shown

	now := time.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d up, %d down, %d unknown", plural(out.Up+out.Down+out.Unknown, "target", "targets"), out.Up, out.Down, out.Unknown)
	if in.Health != "" {
		fmt.Fprintf(&b, "; %d %s", matched, in.Health)
	}
	if matched > 0 {
		t := newTable("HEALTH", "JOB", "INSTANCE", "LAST SCRAPE", "DURATION", "LAST ERROR")
		for _, tg := range shown {
			lastErr := tg.LastError
			if lastErr == "" {
				lastErr = "-"
			}
			t.row(string(tg.Health), tg.ScrapePool, string(tg.Labels["instance"]), since(now, tg.LastScrape),
				formatSeconds(tg.LastScrapeDuration), lastErr)
		}
		b.WriteString("\n" + t.String())
	}
	if rest > 0 {
		b.WriteString("\n" + moreLine(rest, matched, "targets", "Filter by job or health, or raise limit."))
		out.Truncated = &truncated{Total: matched, Shown: len(shown), Limit: fmt.Sprintf("limit=%d", limit)}
	}
	return plugin.JSON(out, b.String())
}

func formatSeconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Microsecond).String()
}

type alertsArgs struct {
	State string `json:"state,omitempty" enum:"firing,pending" description:"Only alerts in this state. Default: firing and pending."`
	Name  string `json:"name,omitempty" description:"Only alerts whose name contains this text (case-insensitive)."`
	Limit int    `json:"limit,omitempty" description:"At most this many alerts (default 50)."`
}

// activeAlert is an alert with the rule that raised it, so the reason it
// fires travels with it.
type activeAlert struct {
	Name        string         `json:"name"`
	State       string         `json:"state"`
	ActiveAt    time.Time      `json:"activeAt"`
	Value       string         `json:"value"`
	Labels      model.LabelSet `json:"labels"`
	Annotations model.LabelSet `json:"annotations"`
	Expr        string         `json:"expr"`
	For         string         `json:"for,omitempty"`
	Group       string         `json:"group"`
}

func listAlerts(ctx context.Context, c *client, in alertsArgs) (*plugin.Result, error) {
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := c.api.Rules(rctx)
	if err != nil {
		return c.errorResult(ctx, "", err)
	}
	alerts := []activeAlert{}
	for _, g := range res.Groups {
		for _, r := range g.Rules {
			ar, ok := r.(v1.AlertingRule)
			if !ok || !containsFold(ar.Name, in.Name) {
				continue
			}
			for _, a := range ar.Alerts {
				if in.State != "" && string(a.State) != in.State {
					continue
				}
				aa := activeAlert{Name: ar.Name, State: string(a.State), ActiveAt: a.ActiveAt, Value: a.Value,
					Labels: a.Labels, Annotations: a.Annotations, Expr: ar.Query, Group: g.Name}
				if ar.Duration > 0 {
					aa.For = model.Duration(time.Duration(ar.Duration * float64(time.Second))).String()
				}
				alerts = append(alerts, aa)
			}
		}
	}
	sort.SliceStable(alerts, func(i, j int) bool {
		if alerts[i].State != alerts[j].State {
			return alerts[i].State == "firing"
		}
		return alerts[i].ActiveAt.Before(alerts[j].ActiveAt)
	})
	limit := limitOr(in.Limit, 50)
	shown, rest := page(alerts, 0, limit)
	out := map[string]any{"total": len(alerts), "alerts": shown}
	if len(alerts) == 0 {
		return plugin.JSON(out, "no active alerts"+filterNote(in.State, in.Name))
	}
	now := time.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s", plural(len(alerts), "active alert", "active alerts"), filterNote(in.State, in.Name))
	for _, a := range shown {
		fmt.Fprintf(&b, "\n\n%s %s since %s (%s), value %s\n  labels: %s", strings.ToUpper(a.State), a.Name,
			formatTime(a.ActiveAt), since(now, a.ActiveAt), alertValue(a.Value), a.Labels)
		for _, k := range sortedKeys(a.Annotations) {
			fmt.Fprintf(&b, "\n  %s: %s", k, a.Annotations[model.LabelName(k)])
		}
		fmt.Fprintf(&b, "\n  rule: %s", a.Expr)
		if a.For != "" {
			fmt.Fprintf(&b, " for %s", a.For)
		}
	}
	if rest > 0 {
		b.WriteString("\n" + moreLine(rest, len(alerts), "alerts", "Filter by state or name, or raise limit."))
		out["truncated"] = truncated{Total: len(alerts), Shown: len(shown), Limit: fmt.Sprintf("limit=%d", limit)}
	}
	return plugin.JSON(out, b.String())
}

func alertValue(v string) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v
	}
	return formatValue(f)
}

func filterNote(state, name string) string {
	var parts []string
	if state != "" {
		parts = append(parts, "state "+state)
	}
	if name != "" {
		parts = append(parts, fmt.Sprintf("name containing %q", name))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

func sortedKeys(ls model.LabelSet) []string {
	keys := make([]string, 0, len(ls))
	for k := range ls {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	return keys
}
