package prometheus

import (
	"context"
	"fmt"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/toolgate/toolgate/sdk/plugin"
)

type rulesArgs struct {
	Type  string `json:"type,omitempty" enum:"alerting,recording" description:"Only alerting or only recording rules. Default: both."`
	State string `json:"state,omitempty" enum:"firing,pending,inactive" description:"Only alerting rules in this state."`
	Name  string `json:"name,omitempty" description:"Only rules whose name contains this text (case-insensitive)."`
	Group string `json:"group,omitempty" description:"Only rule groups whose name contains this text (case-insensitive)."`
	Limit int    `json:"limit,omitempty" description:"At most this many rules (default 100)."`
}

// ruleInfo is one rule of either kind, flattened for the answer.
type ruleInfo struct {
	Group          string         `json:"group"`
	File           string         `json:"file"`
	Type           string         `json:"type"`
	Name           string         `json:"name"`
	Query          string         `json:"query"`
	State          string         `json:"state,omitempty"`
	Health         string         `json:"health"`
	LastError      string         `json:"lastError,omitempty"`
	LastEvaluation time.Time      `json:"lastEvaluation"`
	For            string         `json:"for,omitempty"`
	ActiveAlerts   int            `json:"activeAlerts,omitempty"`
	Labels         model.LabelSet `json:"labels,omitempty"`
	Annotations    model.LabelSet `json:"annotations,omitempty"`
}

func flattenRules(res v1.RulesResult) []ruleInfo {
	var out []ruleInfo
	for _, g := range res.Groups {
		for _, r := range g.Rules {
			switch r := r.(type) {
			case v1.AlertingRule:
				ri := ruleInfo{Group: g.Name, File: g.File, Type: string(v1.RuleTypeAlerting), Name: r.Name, Query: r.Query,
					State: r.State, Health: string(r.Health), LastError: r.LastError, LastEvaluation: r.LastEvaluation,
					ActiveAlerts: len(r.Alerts), Labels: r.Labels, Annotations: r.Annotations}
				if r.Duration > 0 {
					ri.For = model.Duration(time.Duration(r.Duration * float64(time.Second))).String()
				}
				out = append(out, ri)
			case v1.RecordingRule:
				out = append(out, ruleInfo{Group: g.Name, File: g.File, Type: string(v1.RuleTypeRecording), Name: r.Name,
					Query: r.Query, Health: string(r.Health), LastError: r.LastError, LastEvaluation: r.LastEvaluation, Labels: r.Labels})
			}
		}
	}
	return out
}

func listRules(ctx context.Context, c *client, in rulesArgs) (*plugin.Result, error) {
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, err := c.api.Rules(rctx)
	if err != nil {
		return c.errorResult(ctx, "", err)
	}
	rules := []ruleInfo{}
	broken := 0
	for _, r := range flattenRules(res) {
		if (in.Type != "" && r.Type != in.Type) || (in.State != "" && r.State != in.State) ||
			!containsFold(r.Name, in.Name) || !containsFold(r.Group, in.Group) {
			continue
		}
		if r.Health == v1.RuleHealthBad {
			broken++
		}
		rules = append(rules, r)
	}
	limit := limitOr(in.Limit, 100)
	shown, rest := page(rules, 0, limit)
	out := map[string]any{"total": len(rules), "rules": shown}
	if len(rules) == 0 {
		return plugin.JSON(out, "no rules match")
	}
	now := time.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s", plural(len(rules), "rule", "rules"), plural(countGroups(rules), "group", "groups"))
	if broken > 0 {
		fmt.Fprintf(&b, ", %d with errors", broken)
	}
	// A rule's last error can run to hundreds of characters; in a column it
	// would pad every row of the group to its width, so errors follow the
	// group's table instead.
	group := ""
	var t *table
	var errs []string
	flush := func() {
		if t != nil {
			b.WriteString("\n" + t.String())
		}
		for _, e := range errs {
			b.WriteString("\n" + e)
		}
		errs = nil
	}
	for _, r := range shown {
		if r.Group != group {
			flush()
			group = r.Group
			fmt.Fprintf(&b, "\n\ngroup %s (%s)", r.Group, r.File)
			t = newTable("TYPE", "NAME", "STATE", "HEALTH", "LAST EVAL", "QUERY")
		}
		state := r.State
		if r.Type == string(v1.RuleTypeRecording) {
			state = "-"
		} else if r.ActiveAlerts > 0 {
			state = fmt.Sprintf("%s (%d)", r.State, r.ActiveAlerts)
		}
		if r.LastError != "" {
			errs = append(errs, fmt.Sprintf("error of %s: %s", r.Name, r.LastError))
		}
		query := r.Query
		if r.For != "" {
			query += " for " + r.For
		}
		t.row(r.Type, r.Name, state, r.Health, since(now, r.LastEvaluation), query)
	}
	flush()
	if rest > 0 {
		b.WriteString("\n" + moreLine(rest, len(rules), "rules", "Filter by type, state, name or group, or raise limit."))
		out["truncated"] = truncated{Total: len(rules), Shown: len(shown), Limit: fmt.Sprintf("limit=%d", limit)}
	}
	return plugin.JSON(out, b.String())
}

func countGroups(rules []ruleInfo) int {
	seen := map[string]bool{}
	for _, r := range rules {
		seen[r.Group+"\x00"+r.File] = true
	}
	return len(seen)
}

type statusArgs struct {
	Limit int `json:"limit,omitempty" description:"How many of the highest-cardinality metrics and labels to show (default 10)."`
}

type statusResult struct {
	Build   v1.BuildinfoResult    `json:"build"`
	Runtime *v1.RuntimeinfoResult `json:"runtime,omitempty"`
	TSDB    *v1.TSDBResult        `json:"tsdb,omitempty"`
	Notes   []string              `json:"notes,omitempty"`
}

// serverStatus reports build info, and runtime and TSDB stats where the
// server offers them (Prometheus-compatible servers often lack the latter).
func serverStatus(ctx context.Context, c *client, in statusArgs) (*plugin.Result, error) {
	rctx, cancel := c.withTimeout(ctx)
	defer cancel()
	build, err := c.api.Buildinfo(rctx)
	if err != nil {
		return c.errorResult(ctx, "", err)
	}
	out := statusResult{Build: build}
	var b strings.Builder
	fmt.Fprintf(&b, "Prometheus %s (revision %s, branch %s, %s)", build.Version, build.Revision, build.Branch, build.GoVersion)
	if rt, err := c.api.Runtimeinfo(rctx); err != nil {
		out.Notes = append(out.Notes, "runtime info unavailable: "+err.Error())
	} else {
		out.Runtime = &rt
		fmt.Fprintf(&b, "\nstarted %s, storage retention %s, config reload %s, %d goroutines",
			formatTime(rt.StartTime), rt.StorageRetention, okFailed(rt.ReloadConfigSuccess), rt.GoroutineCount)
	}
	limit := limitOr(in.Limit, 10)
	if ts, err := c.api.TSDB(rctx); err != nil {
		out.Notes = append(out.Notes, "TSDB status unavailable: "+err.Error())
	} else {
		ts.SeriesCountByMetricName, _ = page(ts.SeriesCountByMetricName, 0, limit)
		ts.LabelValueCountByLabelName, _ = page(ts.LabelValueCountByLabelName, 0, limit)
		ts.MemoryInBytesByLabelName, _ = page(ts.MemoryInBytesByLabelName, 0, limit)
		ts.SeriesCountByLabelValuePair, _ = page(ts.SeriesCountByLabelValuePair, 0, limit)
		out.TSDB = &ts
		h := ts.HeadStats
		fmt.Fprintf(&b, "\nhead block: %d series, %d label pairs, %d chunks", h.NumSeries, h.NumLabelPairs, h.ChunkCount)
		if h.NumSeries > 0 {
			fmt.Fprintf(&b, ", from %s to %s", formatModelTime(model.Time(h.MinTime)), formatModelTime(model.Time(h.MaxTime)))
		}
		statTable(&b, "metrics with the most series", "SERIES", ts.SeriesCountByMetricName)
		statTable(&b, "labels with the most values", "VALUES", ts.LabelValueCountByLabelName)
	}
	for _, n := range out.Notes {
		b.WriteString("\nnote: " + n)
	}
	return plugin.JSON(out, b.String())
}

func statTable(b *strings.Builder, title, col string, stats []v1.Stat) {
	if len(stats) == 0 {
		return
	}
	t := newTable("NAME", col)
	for _, s := range stats {
		t.row(s.Name, fmt.Sprint(s.Value))
	}
	fmt.Fprintf(b, "\n\n%s:\n%s", title, t)
}

func okFailed(ok bool) string {
	if ok {
		return "ok"
	}
	return "failed"
}
