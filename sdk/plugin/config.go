package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// DecodeConfig decodes a plugin's config block into v (a pointer to a struct
// with json tags), refusing unknown fields. Problems come back as a
// *ConfigError whose paths the host maps to the operator's file:line:col.
func DecodeConfig(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return &ConfigError{Fields: []FieldError{{Message: "config must be an object: " + err.Error()}}}
	}
	if unknown := unknownFields(top, v); len(unknown) > 0 {
		return &ConfigError{Fields: unknown}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return &ConfigError{Fields: []FieldError{{
			Path:    typeErr.Field,
			Message: fmt.Sprintf("expected %s, got %s", typeErr.Type, typeErr.Value),
		}}}
	}
	return &ConfigError{Fields: []FieldError{{Message: err.Error()}}}
}

// unknownFields lists the top-level keys v has no field for, each with the
// nearest known name when one is close.
func unknownFields(top map[string]json.RawMessage, v any) []FieldError {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	known := map[string]bool{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, skip := jsonName(t.Field(i)); !skip && t.Field(i).IsExported() {
			known[name] = true
			names = append(names, name)
		}
	}
	var out []FieldError
	for k := range top {
		if known[k] {
			continue
		}
		msg := "unknown setting"
		if near := nearest(k, names); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		out = append(out, FieldError{Path: k, Message: msg})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// nearest returns the candidate within edit distance 2 of s, if any.
func nearest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Required returns a FieldError, in path order, for each named field whose
// value is empty; use it after DecodeConfig.
func Required(fields map[string]string) []FieldError {
	var out []FieldError
	for path, v := range fields {
		if strings.TrimSpace(v) == "" {
			out = append(out, FieldError{Path: path, Message: "is required"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
