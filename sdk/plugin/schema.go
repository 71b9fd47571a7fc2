package plugin

import (
	"encoding/json"
	"fmt"
	"reflect"
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

// addFields adds the fields of struct t to props, flattening embedded structs
// without a json name the way encoding/json promotes their fields.
func addFields(t reflect.Type, props map[string]any, required *[]string, visiting map[reflect.Type]bool) error {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if err := addFields(et, props, required, visiting); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		name, omitempty, skip := jsonName(f)
		if skip {
			continue
		}
		s, err := schemaFor(f.Type, visiting)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
		if d := f.Tag.Get("description"); d != "" {
			s["description"] = d
		}
		if e := f.Tag.Get("enum"); e != "" {
			s["enum"] = strings.Split(e, ",")
		}
		if d, ok := f.Tag.Lookup("default"); ok {
			var v any
			if json.Unmarshal([]byte(d), &v) != nil {
				v = d
			}
			s["default"] = v
		}
		props[name] = s
		if !omitempty && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, name)
		}
	}
	return nil
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
