package prometheus

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/model"
)

// timeHelp is the accepted time syntax, quoted in argument descriptions and
// error messages alike so the two never disagree.
const timeHelp = `RFC 3339 ("2024-05-01T12:00:00Z"), Unix seconds ("1714564800") or milliseconds ("1714564800000"), "now", or "now-1h" / "now-30m" / "now-7d"`

// Times outside years 0000–9999 cannot be written in RFC 3339, so neither the
// answer's text nor its structured content could carry them.
var (
	earliestTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	latestTime   = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// TimeError is a time argument that cannot be used, with what to write
// instead.
type TimeError struct {
	Arg    string // time, start or end
	Value  string
	Reason string
	Fix    string // empty: write the time in an accepted syntax
}

func (e *TimeError) Error() string {
	fix := e.Fix
	if fix == "" {
		fix = "use " + timeHelp
	}
	return fmt.Sprintf("%s %q: %s; %s", e.Arg, e.Value, e.Reason, fix)
}

// fiveDigitYear spots an RFC 3339 time whose year has more than four digits,
// which time.Parse only calls "cannot parse".
var fiveDigitYear = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[+-]?\d{5,}-`) })

// durationSyntax is Prometheus' duration syntax; a match that
// model.ParseDuration still refuses is too long to represent.
var durationSyntax = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+(ms|s|m|h|d|w|y))+$`) })

// parseTime reads time argument arg given the way an assistant writes one;
// empty means def. A Unix timestamp too large for seconds is read as
// milliseconds, the unit JavaScript and most logs use; note then says so,
// for the answer to repeat.
func parseTime(arg, s string, now, def time.Time) (t time.Time, note string, err error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") && durationSyntax().MatchString(s[1:]) {
		s = "now" + s // "-1h", as Grafana and many assistants write it
	}
	switch {
	case s == "":
		return def, "", nil
	case s == "now":
		return now, "", nil
	case strings.HasPrefix(s, "now-") || strings.HasPrefix(s, "now+"):
		d, err := model.ParseDuration(s[4:])
		if err != nil && durationSyntax().MatchString(s[4:]) {
			return time.Time{}, "", &TimeError{Arg: arg, Value: s, Reason: "the offset is longer than Prometheus' durations reach (about 290 years), so the time lies outside the years 0000–9999"}
		}
		if err != nil {
			return time.Time{}, "", &TimeError{Arg: arg, Value: s, Reason: fmt.Sprintf("%q is not a duration such as 5m, 1h or 7d", s[4:])}
		}
		if s[3] == '-' {
			t = now.Add(-time.Duration(d))
		} else {
			t = now.Add(time.Duration(d))
		}
		return inRange(arg, s, t)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		if t, ok := unixTime(f); ok {
			return t, "", nil
		}
		// Thirteen digits and more cannot be seconds of a year Prometheus
		// can answer for, while every millisecond timestamp since 2001 has
		// them; shorter out-of-range numbers stay ambiguous and are refused.
		if t, ok := unixTime(f / 1e3); ok && math.Abs(f) >= 1e12 {
			return t, fmt.Sprintf("%s %s was read as Unix milliseconds: %s", arg, s, formatTime(t)), nil
		}
		return time.Time{}, "", &TimeError{Arg: arg, Value: s, Reason: "as Unix seconds (or milliseconds, from 13 digits on) it lies outside the years 0000–9999; microseconds and nanoseconds are not accepted"}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return inRange(arg, s, t)
	}
	if fiveDigitYear().MatchString(s) {
		return time.Time{}, "", &TimeError{Arg: arg, Value: s, Reason: "years past 9999 are out of range"}
	}
	return time.Time{}, "", &TimeError{Arg: arg, Value: s, Reason: "not a time"}
}

// unixTime reads sec Unix seconds, when that lands within years 0000–9999;
// the fraction is rounded to the microsecond, finer than any float input
// of this size carries.
func unixTime(sec float64) (time.Time, bool) {
	if sec < float64(earliestTime.Unix()) || sec > float64(latestTime.Unix()) {
		return time.Time{}, false
	}
	whole, frac := math.Modf(sec)
	return time.Unix(int64(whole), int64(math.Round(frac*1e6))*1e3).UTC(), true
}

func inRange(arg, s string, t time.Time) (time.Time, string, error) {
	if t.Before(earliestTime) || t.After(latestTime) {
		return time.Time{}, "", &TimeError{Arg: arg, Value: s, Reason: "lies outside the years 0000–9999"}
	}
	return t, "", nil
}

// parseStep reads a step as a duration ("30s", "5m") or plain seconds ("15").
func parseStep(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if !(f > 0) || f*float64(time.Second) >= math.MaxInt64 {
			return 0, fmt.Errorf("step %q must be a positive number of seconds", s)
		}
		return atLeastMillisecond(s, time.Duration(f*float64(time.Second)))
	}
	d, err := model.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("step %q: use a duration such as 15s, 1m or 1h", s)
	}
	return atLeastMillisecond(s, time.Duration(d))
}

// atLeastMillisecond refuses a step finer than Prometheus' millisecond
// timestamps, which would otherwise reach it as 0 (".0000000001" seconds).
func atLeastMillisecond(s string, d time.Duration) (time.Duration, error) {
	if d < time.Millisecond {
		return 0, fmt.Errorf("step %q is finer than a millisecond, Prometheus' resolution; use a duration such as 15s, 1m or 1h", s)
	}
	return d, nil
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

// parseRange reads a query's start and end: end defaults to now, start to an
// hour before end, and start must come first. notes are what the answer
// repeats about how the times were read.
func parseRange(startArg, endArg string) (start, end time.Time, notes []string, err error) {
	now := time.Now().UTC()
	end, endNote, err := parseTime("end", endArg, now, now)
	if err != nil {
		return start, end, nil, err
	}
	start, startNote, err := parseTime("start", startArg, now, end.Add(-time.Hour))
	if err != nil {
		return start, end, nil, err
	}
	if !start.Before(end) {
		return start, end, nil, fmt.Errorf("start (%s) must be before end (%s)", formatTime(start), formatTime(end))
	}
	return start, end, appendNote(appendNote(nil, startNote), endNote), nil
}
