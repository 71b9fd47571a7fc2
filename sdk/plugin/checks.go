package plugin

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

// schemaProblems finds what the schema derived from t says and decoding
// alone would let through: a required member missing, a value outside its
// enum. The gateway checks a tool's arguments against the schema before a
// call, but nothing checks a config block at start-up but the plugin itself,
// so without this a block `toolgate config validate` refuses would reach the
// plugin with zero values. Objects nested in structs are checked too.
// NewConfig and NewTool check them; DecodeConfig leaves them to its caller.
func schemaProblems(obj map[string]json.RawMessage, t reflect.Type, prefix string) []problem {
	var out []problem
	for _, f := range fieldsOf(t) {
		path := prefix + f.name
		raw, given := obj[f.name]
		if !given {
			_, hasDefault := f.sf.Tag.Lookup("default")
			if !f.omitempty && !hasDefault && f.sf.Type.Kind() != reflect.Pointer {
				out = append(out, problem{path: path, message: "is required"})
			}
			continue
		}
		if e, ok := f.sf.Tag.Lookup("enum"); ok {
			out = append(out, enumProblems(raw, f.sf.Type, e, path)...)
		}
		ft := f.sf.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		var inner map[string]json.RawMessage
		if ft.Kind() == reflect.Struct && ft != timeType && json.Unmarshal(raw, &inner) == nil && inner != nil {
			out = append(out, schemaProblems(inner, ft, path+".")...)
		}
	}
	return out
}

// enumProblems checks a value (each value, for a list) against an enum tag.
func enumProblems(raw json.RawMessage, t reflect.Type, tag, path string) []problem {
	values, err := enumOf(t, tag)
	if err != nil {
		return nil // the schema could not be derived either; NewTool said so
	}
	allowed := make([]string, len(values))
	for i, v := range values {
		b, _ := json.Marshal(v)
		allowed[i] = string(b)
	}
	in := func(v json.RawMessage) bool {
		var c bytes.Buffer
		if json.Compact(&c, v) != nil {
			return true // malformed: decoding reports it
		}
		for _, a := range allowed {
			if c.String() == a {
				return true
			}
		}
		return false
	}
	words := "must be one of " + strings.Join(allowed, ", ")
	var list []json.RawMessage
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) && json.Unmarshal(raw, &list) == nil {
		var out []problem
		for i, v := range list {
			if !in(v) {
				out = append(out, problem{path: path + "." + strconv.Itoa(i), message: words + ", got " + string(v)})
			}
		}
		return out
	}
	if !in(raw) {
		return []problem{{path: path, message: words + ", got " + string(raw)}}
	}
	return nil
}
