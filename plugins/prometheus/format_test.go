package prometheus

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"}, {60, "60"}, {-3, "-3"}, {1073741824, "1073741824"},
		{0.75, "0.75"}, {1.1, "1.1"}, {0.123456789, "0.123457"}, {12345.6789, "12345.7"},
		{0.0001234, "0.0001234"}, {1e20, "1e+20"},
		{math.NaN(), "NaN"}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"},
	} {
		if got := formatValue(tc.in); got != tc.want {
			t.Errorf("formatValue(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestChooseStep(t *testing.T) {
	for _, tc := range []struct {
		span      time.Duration
		maxPoints int
		want      time.Duration
	}{
		{time.Hour, 120, time.Minute},
		{time.Hour, 121, 30 * time.Second},
		{10 * time.Minute, 11, time.Minute},
		{time.Minute, 1000, time.Second},
		{24 * time.Hour, 100, 15 * time.Minute},
		{30 * 24 * time.Hour, 10, 4 * 24 * time.Hour},
	} {
		got := chooseStep(tc.span, tc.maxPoints)
		if got != tc.want || pointsIn(tc.span, got) > tc.maxPoints {
			t.Errorf("chooseStep(%s, %d) = %s (%d points), want %s", tc.span, tc.maxPoints, got, pointsIn(tc.span, got), tc.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	def := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		note string
	}{
		{"", def, ""}, {"now", now, ""}, {"now-1h", now.Add(-time.Hour), ""}, {"now-7d", now.Add(-7 * 24 * time.Hour), ""},
		{"now+5m", now.Add(5 * time.Minute), ""}, {"-5m", now.Add(-5 * time.Minute), ""}, {"-1h30m", now.Add(-90 * time.Minute), ""},
		{"1700000000", time.Unix(t0, 0).UTC(), ""},
		{"1700000000.5", time.Unix(t0, 5e8).UTC(), ""}, {"2023-11-14T22:13:20Z", time.Unix(t0, 0).UTC(), ""},
		{"1700000000000", time.Unix(t0, 0).UTC(), "start 1700000000000 was read as Unix milliseconds: 2023-11-14T22:13:20Z"},
		{"1700000000123", time.Unix(t0, 123e6).UTC(), "read as Unix milliseconds: 2023-11-14T22:13:20.123Z"},
		{"253402300799", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), ""},
	} {
		got, note, err := parseTime("start", tc.in, now, def)
		if err != nil || !got.Equal(tc.want) || !strings.Contains(note, tc.note) || (tc.note == "") != (note == "") {
			t.Errorf("parseTime(%q) = %s, %q, %v; want %s, %q", tc.in, got, note, err, tc.want, tc.note)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"yesterday", `start "yesterday": not a time; use RFC 3339`},
		{"now-", `"" is not a duration`},
		{"now-1x", `"1x" is not a duration`},
		{"NaN", "not a time"},
		{"2023-11-14", "not a time"},
		{"now+10000y", "longer than Prometheus' durations reach"},
		{"10000-01-01T00:00:00Z", "years past 9999 are out of range"},
		{"253402300800", "outside the years 0000–9999"},
		{"1700000000000000", "microseconds and nanoseconds are not accepted"},
		{"-99999999999999999", "outside the years 0000–9999"},
	} {
		_, _, err := parseTime("start", tc.in, now, def)
		var te *TimeError
		if !errors.As(err, &te) || te.Arg != "start" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseTime(%q) error = %v, want a *TimeError about start saying %q", tc.in, err, tc.want)
		}
	}
}

func TestParsePosition(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want Position
		ok   bool
	}{
		{`invalid parameter "query": 1:5: parse error: unexpected end of input inside braces`, Position{1, 5}, true},
		{`1:10: parse error: expected type range vector`, Position{1, 10}, true},
		{`invalid parameter "query": 3:12: parse error: x`, Position{3, 12}, true},
		{`query processing would load too many samples`, Position{}, false},
		{`0:0: parse error: x`, Position{}, false},
	} {
		got, ok := parsePosition(tc.msg)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parsePosition(%q) = %v, %v; want %v, %v", tc.msg, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPointAt(t *testing.T) {
	got := pointAt("sum(rate(x[5m])", Position{Line: 1, Column: 16})
	want := "at line 1, column 16:\n  sum(rate(x[5m])\n                 ^"
	if got != want {
		t.Errorf("pointAt:\n%s\nwant:\n%s", got, want)
	}
	if got := pointAt("up", Position{Line: 4, Column: 1}); got != "at line 4, column 1" {
		t.Errorf("pointAt past the end = %q", got)
	}
}

// Times and error messages come from outside; their parsers must never panic
// and must keep their promises.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"now", "now-1h", "1700000000.25", "2023-11-14T22:13:20Z", "now+", "1e400"} {
		f.Add(s)
	}
	now := time.Unix(t0, 0)
	f.Fuzz(func(t *testing.T, s string) {
		// Whatever is accepted must be writable in the answer.
		if got, _, err := parseTime("time", s, now, now); err == nil {
			if _, err := got.MarshalJSON(); err != nil {
				t.Fatalf("parseTime(%q) = %s, which no answer can carry: %v", s, got, err)
			}
		}
		if d, err := parseStep(s); err == nil && d <= 0 {
			t.Fatalf("parseStep(%q) = %s without error", s, d)
		}
	})
}

func FuzzParsePosition(f *testing.F) {
	f.Add(`invalid parameter "query": 1:5: parse error: x`)
	f.Add("99999999999999999999:1: parse error")
	f.Fuzz(func(t *testing.T, msg string) {
		pos, ok := parsePosition(msg)
		if ok && (pos.Line < 1 || pos.Column < 1) {
			t.Fatalf("position %v from %q", pos, msg)
		}
		_ = pointAt(msg, pos)
	})
}

// truncate cuts on a character boundary: text cut inside one is not UTF-8,
// and a result holding it cannot be sent.
func TestTruncateKeepsUTF8(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5} {
		if got := truncate("éééé", n); !utf8.ValidString(got) {
			t.Errorf("truncate(%d) = %q, not UTF-8", n, got)
		}
	}
}
