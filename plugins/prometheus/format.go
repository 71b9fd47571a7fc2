package prometheus

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prometheus/common/model"
)

// formatValue writes a sample value for a person: integers in full, other
// numbers to six significant digits, and NaN/Inf the way PromQL spells them.
func formatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1e-3 && math.Abs(v) < 1e15:
		digits := int(math.Floor(math.Log10(math.Abs(v)))) + 1
		s := strconv.FormatFloat(v, 'f', max(0, 6-digits), 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// formatTime is the one way times appear in text: UTC, to the second unless
// the time has a fraction.
func formatTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() != 0 {
		return t.Format("2006-01-02T15:04:05.000Z07:00")
	}
	return t.Format(time.RFC3339)
}

func formatModelTime(t model.Time) string { return formatTime(t.Time()) }

// seriesName renders a label set the way PromQL selects it.
func seriesName(m model.Metric) string {
	if len(m) == 0 {
		return "{}"
	}
	return m.String()
}

// table renders rows under a header, columns aligned.
type table struct {
	b  strings.Builder
	tw *tabwriter.Writer
}

func newTable(header ...string) *table {
	t := &table{}
	t.tw = tabwriter.NewWriter(&t.b, 0, 0, 2, ' ', 0)
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) String() string {
	_ = t.tw.Flush()
	return strings.TrimRight(t.b.String(), " \n")
}

// sparkline draws values as a row of block characters, a trend at a glance.
func sparkline(vals []float64) string {
	const bars = "▁▂▃▄▅▆▇█"
	blocks := []rune(bars)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range vals {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(blocks[len(blocks)/2])
		default:
			b.WriteRune(blocks[int(position(v, lo, hi)*float64(len(blocks)-1)+0.5)])
		}
	}
	return b.String()
}

// position is where v lies between lo and hi, from 0 to 1. Between values
// near ±MaxFloat64, hi-lo overflows to +Inf, and v-lo with it; halving first
// keeps both finite, where otherwise Inf/Inf made an index of NaN.
func position(v, lo, hi float64) float64 {
	if span := hi - lo; !math.IsInf(span, 0) {
		return (v - lo) / span
	}
	return (v/2 - lo/2) / (hi/2 - lo/2)
}

// truncated records what a limit left out, for the structured result.
type truncated struct {
	Total int    `json:"total"`
	Shown int    `json:"shown"`
	Limit string `json:"limit"`
}

// moreLine says how much a limit left out and how to get the rest.
func moreLine(left, total int, what, hint string) string {
	return fmt.Sprintf("… %d more %s not shown (%d in total). %s", left, what, total, hint)
}

// narrowSeriesHint is how to make a series-heavy answer smaller.
const narrowSeriesHint = `Narrow the query with label matchers (e.g. {job="api"}), aggregate (sum by (job) (...)), use topk(10, ...), or raise max_series.`

// plural writes "1 series"/"3 targets" style counts.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// page applies offset and limit to a list and counts what the limit left out.
func page[T any](items []T, offset, limit int) (shown []T, rest int) {
	if offset > len(items) {
		offset = len(items)
	}
	items = items[offset:]
	if limit > 0 && len(items) > limit {
		return items[:limit], len(items) - limit
	}
	return items, 0
}
