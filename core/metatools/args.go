package metatools

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// entryAt names the entry of a map argument whose value is not of the type
// te wanted, as ".key" to follow the argument's name (labels.tier), the way
// get_prompt names its arguments: encoding/json names only the map. raw is
// the argument's value; "" when the argument itself has the wrong type.
func entryAt(into any, te *json.UnmarshalTypeError, raw json.RawMessage) string {
	t := fieldType(into, te.Field)
	if t == nil || t.Kind() != reflect.Map || t.Elem() != te.Type {
		return ""
	}
	// In the order given, so the entry named is the one whose kind
	// te.Value reports, the first that failed.
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return ""
		}
		if json.Unmarshal(v, reflect.New(t.Elem()).Interface()) != nil {
			return fmt.Sprintf(".%s", key)
		}
	}
	return ""
}

// fieldType is the type of the field of struct *into whose JSON name is
// name, or nil.
func fieldType(into any, name string) reflect.Type {
	t := reflect.TypeOf(into)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for i := 0; i < t.NumField(); i++ {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n == name {
			return t.Field(i).Type
		}
	}
	return nil
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

// MaxLimit is the most items a listing or search answers at once.
const MaxLimit = 1000

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
	case l > MaxLimit:
		return 0, 0, &ArgumentError{Tool: tool, Argument: "limit", Problem: fmt.Sprintf("must be at most %d", MaxLimit)}
	case o < 0:
		return 0, 0, &ArgumentError{Tool: tool, Argument: "offset", Problem: "must not be negative"}
	}
	return l, o, nil
}

// page validates paging arguments and returns the offset asked for and the
// slice bounds for n items.
func page(tool string, limit, offset *int, def, n int) (o, lo, hi int, err error) {
	l, o, err := paging(tool, limit, offset, def)
	if err != nil {
		return 0, 0, 0, err
	}
	lo = min(o, n)
	return o, lo, min(lo+l, n), nil
}

// pastEnd is the note of a page that starts at or past the last of total
// items, "" for any other. A paging client is told the offset it asked for,
// so it can tell an empty page from the end of a list that shrank.
func pastEnd(offset, total int) string {
	if offset == 0 || offset < total {
		return ""
	}
	return fmt.Sprintf("offset %d is past the end: there are %d; offset 0 starts from the first", offset, total)
}

// typeProblem says, in JSON's words rather than Go's, what an argument of the
// wrong type should have been and what it was.
func typeProblem(te *json.UnmarshalTypeError) string {
	kind, literal, _ := strings.Cut(te.Value, " ")
	want := te.Type.Kind()
	if kind == "number" && literal != "" {
		switch {
		case isIntKind(want) && strings.ContainsAny(literal, ".eE"):
			return fmt.Sprintf("expected an integer, got %s", literal)
		case isIntKind(want) || want == reflect.Float32 || want == reflect.Float64:
			return fmt.Sprintf("%s is out of range", literal)
		}
	}
	return fmt.Sprintf("expected %s, got %s", kindName(want), valueName(kind))
}

func isIntKind(k reflect.Kind) bool {
	return reflect.Int <= k && k <= reflect.Uint64
}

// kindName names the JSON type a Go kind decodes from.
func kindName(k reflect.Kind) string {
	switch {
	case isIntKind(k):
		return "an integer"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "true or false"
	case k == reflect.Map || k == reflect.Struct:
		return "an object"
	case k == reflect.Slice || k == reflect.Array:
		return "an array"
	}
	return k.String()
}

// valueName names encoding/json's kind of a value ("string", "bool", …).
func valueName(kind string) string {
	switch kind {
	case "bool":
		return "a boolean"
	case "object", "array":
		return "an " + kind
	}
	return "a " + kind
}
