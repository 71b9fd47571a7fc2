package prometheus

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// timeHelp is the accepted time syntax, quoted in argument descriptions and
// error messages alike so the two never disagree.
const timeHelp = `RFC 3339 ("2024-05-01T12:00:00Z"), Unix seconds ("1714564800"), "now", or "now-1h" / "now-30m" / "now-7d"`

// parseTime reads a time given the way an assistant writes one; empty means def.
func parseTime(s string, now, def time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return def, nil
	case s == "now":
		return now, nil
	case strings.HasPrefix(s, "now-") || strings.HasPrefix(s, "now+"):
		d, err := model.ParseDuration(s[4:])
		if err != nil {
			return time.Time{}, fmt.Errorf("time %q: %q is not a duration such as 5m, 1h or 7d", s, s[4:])
		}
		if s[3] == '-' {
			return now.Add(-time.Duration(d)), nil
		}
		return now.Add(time.Duration(d)), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("time %q: use %s", s, timeHelp)
}

// parseStep reads a step as a duration ("30s", "5m") or plain seconds ("15").
func parseStep(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if !(f > 0) || f*float64(time.Second) >= math.MaxInt64 {
			return 0, fmt.Errorf("step %q must be a positive number of seconds", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := model.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("step %q: use a duration such as 15s, 1m or 1h", s)
	}
	return time.Duration(d), nil
}

// niceSteps are the resolutions a person would pick for a graph.
var niceSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// pointsIn is how many samples a range query returns per series at step.
func pointsIn(span, step time.Duration) int {
	return int(span/step) + 1
}

// chooseStep picks the finest nice step that keeps a series within maxPoints
// samples over span.
func chooseStep(span time.Duration, maxPoints int) time.Duration {
	for _, s := range niceSteps {
		if pointsIn(span, s) <= maxPoints {
			return s
		}
	}
	day := 24 * time.Hour
	days := time.Duration(math.Ceil(float64(span) / float64(day) / float64(maxPoints-1)))
	return days * day
}
