package kubernetes

import (
	"fmt"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// renderTable lays rows out in aligned columns like kubectl's output: the
// cheapest form for a model to read many objects at once.
func renderTable(headers []string, rows [][]string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	fmt.Fprintln(w, strings.Join(headers, "\t"))
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			// A tab or newline inside a cell would break the layout.
			cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(c)
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	_ = w.Flush()
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// cell formats one server-side table cell as kubectl does.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "<none>"
	case string:
		if x == "" {
			return "<none>"
		}
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return fmt.Sprintf("%d", int64(x))
		}
		return fmt.Sprintf("%g", x)
	case bool:
		return fmt.Sprintf("%t", x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = cell(e)
		}
		return strings.Join(parts, ",")
	}
	return fmt.Sprint(v)
}

// age is the time since t in kubectl's short form ("5m", "3d4h").
func age(t time.Time, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t))
}

// pageNotice tells the assistant that more objects exist and how to get them.
func pageNotice(shown int, what string, cont string, remaining *int64) string {
	more := "more exist"
	if remaining != nil && *remaining > 0 {
		more = fmt.Sprintf("%d more exist", *remaining)
	}
	return fmt.Sprintf("Showing %d %s; %s. Call again with continue=%q for the next page, or narrow the request with a selector.",
		shown, what, more, cont)
}
