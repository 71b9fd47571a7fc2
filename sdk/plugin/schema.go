package plugin

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	rawMessageType = reflect.TypeOf(json.RawMessage{})
	timeType       = reflect.TypeOf(time.Time{})
)

// SchemaOf derives a JSON Schema (draft 2020-12) object from the type of v.
func SchemaOf(v any) (json.RawMessage, error) {
	t := reflect.TypeOf(v)
	if t == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct && t.Kind() != reflect.Map {
		return nil, fmt.Errorf("tool arguments must be a struct or map, not %s", t)
	}
	s, err := schemaFor(t, map[reflect.Type]bool{})
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

func schemaFor(t reflect.Type, visiting map[reflect.Type]bool) (map[string]any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == rawMessageType || t.Kind() == reflect.Interface:
		return map[string]any{}, nil
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}, nil
		}
		items, err := schemaFor(t.Elem(), visiting)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map keys must be strings in %s", t)
		}
		values, err := schemaFor(t.Elem(), visiting)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": values}, nil
	case reflect.Struct:
		return structSchema(t, visiting)
	}
	return nil, fmt.Errorf("type %s cannot be described in JSON Schema", t)
}

func structSchema(t reflect.Type, visiting map[reflect.Type]bool) (map[string]any, error) {
	if visiting[t] {
		return nil, fmt.Errorf("recursive type %s", t)
	}
	visiting[t] = true
	defer delete(visiting, t)

	props := map[string]any{}
	required := []string{}
	if err := addFields(t, props, &required, visiting); err != nil {
		return nil, err
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out, nil
}

// field is one JSON member of a struct, with where it came from.
type field struct {
	sf        reflect.StructField
	name      string
	omitempty bool
}

// fieldsOf lists the JSON members of struct t, flattening embedded structs
// without a json name the way encoding/json promotes their fields. Schemas,
// defaults and the check for unknown names all read this one list.
func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				out = append(out, fieldsOf(et)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name, omitempty, skip := jsonName(f); !skip {
			out = append(out, field{sf: f, name: name, omitempty: omitempty})
		}
	}
	return out
}

// addFields adds the fields of struct t to props. A field is required unless
// it is optional in JSON (omitempty, a pointer) or has a default.
func addFields(t reflect.Type, props map[string]any, required *[]string, visiting map[reflect.Type]bool) error {
	for _, f := range fieldsOf(t) {
		s, err := schemaFor(f.sf.Type, visiting)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.sf.Name, err)
		}
		if d := f.sf.Tag.Get("description"); d != "" {
			s["description"] = d
		}
		if e, ok := f.sf.Tag.Lookup("enum"); ok {
			values, err := enumOf(f.sf.Type, e)
			if err != nil {
				return fmt.Errorf("field %s: %w", f.sf.Name, err)
			}
			if items, ok := s["items"].(map[string]any); ok && s["type"] == "array" {
				items["enum"] = values
			} else {
				s["enum"] = values
			}
		}
		if pat, ok := f.sf.Tag.Lookup("pattern"); ok {
			if err := addPattern(s, pat); err != nil {
				return fmt.Errorf("field %s: %w", f.sf.Name, err)
			}
		}
		_, hasDefault := f.sf.Tag.Lookup("default")
		if hasDefault {
			v, err := defaultOf(f.sf)
			if err != nil {
				return err
			}
			s["default"] = v
		}
		props[f.name] = s
		if !f.omitempty && !hasDefault && f.sf.Type.Kind() != reflect.Pointer {
			*required = append(*required, f.name)
		}
	}
	return nil
}

// addPattern sets a `pattern:"..."` tag on a string's schema (on its
// elements', for a list of strings). The regular expression must compile:
// the gateway checks values against it.
func addPattern(s map[string]any, pat string) error {
	if _, err := regexp.Compile(pat); err != nil {
		return fmt.Errorf("pattern %q: %w", pat, err)
	}
	if items, ok := s["items"].(map[string]any); ok && s["type"] == "array" && items["type"] == "string" {
		items["pattern"] = pat
		return nil
	}
	if s["type"] != "string" {
		return fmt.Errorf("pattern %q on a non-string field", pat)
	}
	s["pattern"] = pat
	return nil
}

// enumOf reads an `enum:"a,b"` tag as values of the field's type (of its
// elements, for a list), so an int field's enum holds numbers.
func enumOf(t reflect.Type, tag string) ([]any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && t.Elem().Kind() != reflect.Uint8 {
		t = t.Elem()
	}
	var out []any
	for _, s := range strings.Split(tag, ",") {
		v, err := tagValue(t, s)
		if err != nil {
			return nil, fmt.Errorf("enum value %q: %w", s, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// defaultOf reads a field's `default:"..."` tag as a value of its type.
func defaultOf(f reflect.StructField) (any, error) {
	v, err := tagValue(f.Type, f.Tag.Get("default"))
	if err != nil {
		return nil, fmt.Errorf("field %s: default %q: %w", f.Name, f.Tag.Get("default"), err)
	}
	return v, nil
}

// tagValue parses a tag's text as a JSON value of type t: a string field's
// text as is, a number or bool by its Go syntax, anything else as JSON.
func tagValue(t reflect.Type, s string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return s, nil
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("not true or false")
		}
		return b, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, t.Bits())
		if err != nil {
			return nil, fmt.Errorf("not an integer of %s", t)
		}
		return n, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(s, 10, t.Bits())
		if err != nil {
			return nil, fmt.Errorf("not an integer of %s", t)
		}
		return n, nil
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(s, t.Bits())
		if err != nil {
			return nil, fmt.Errorf("not a number")
		}
		return f, nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("not JSON of %s", t)
	}
	return v, nil
}

func jsonName(f reflect.StructField) (name string, omitempty, skip bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, true
	}
	parts := strings.Split(tag, ",")
	name = parts[0]
	if name == "" {
		name = f.Name
	}
	for _, p := range parts[1:] {
		if p == "omitempty" || p == "omitzero" {
			omitempty = true
		}
	}
	return name, omitempty, false
}
