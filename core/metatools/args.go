package metatools

import (
	"reflect"
	"sort"
	"strings"
)

// jsonFields lists the JSON names of a struct's fields.
func jsonFields(v any) map[string]bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}

func knownList(known map[string]bool) string {
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "no arguments"
	}
	return strings.Join(names, ", ")
}

// page validates paging arguments and returns the slice bounds for n items.
func page(tool string, limit, offset *int, def, n int) (lo, hi int, err error) {
	l := def
	if limit != nil {
		l = *limit
	}
	o := 0
	if offset != nil {
		o = *offset
	}
	if l <= 0 {
		return 0, 0, &ArgumentError{Tool: tool, Argument: "limit", Problem: "must be at least 1"}
	}
	if l > 1000 {
		return 0, 0, &ArgumentError{Tool: tool, Argument: "limit", Problem: "must be at most 1000"}
	}
	if o < 0 {
		return 0, 0, &ArgumentError{Tool: tool, Argument: "offset", Problem: "must not be negative"}
	}
	lo = min(o, n)
	hi = min(lo+l, n)
	return lo, hi, nil
}
