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

// paging validates a meta-tool's limit and offset arguments, defaulting the
// limit to def.
func paging(tool string, limit, offset *int, def int) (l, o int, err error) {
	l = def
	if limit != nil {
		l = *limit
	}
	if offset != nil {
		o = *offset
	}
	switch {
	case l <= 0:
		return 0, 0, &ArgumentError{Tool: tool, Argument: "limit", Problem: "must be at least 1"}
	case l > 1000:
		return 0, 0, &ArgumentError{Tool: tool, Argument: "limit", Problem: "must be at most 1000"}
	case o < 0:
		return 0, 0, &ArgumentError{Tool: tool, Argument: "offset", Problem: "must not be negative"}
	}
	return l, o, nil
}

// page validates paging arguments and returns the slice bounds for n items.
func page(tool string, limit, offset *int, def, n int) (lo, hi int, err error) {
	l, o, err := paging(tool, limit, offset, def)
	if err != nil {
		return 0, 0, err
	}
	lo = min(o, n)
	return lo, min(lo+l, n), nil
}
