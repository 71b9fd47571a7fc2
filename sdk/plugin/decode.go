package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/sdk/internal/similar"
)

// problem is one thing wrong with a JSON object decoded into a struct, in the
// object's own terms: its path and JSON types, never Go's.
type problem struct {
	path    string // dotted, from the top of the object; "" for the whole object
	message string
	unknown bool   // path names no field
	near    string // for an unknown name, the field it probably meant
	// wholeNumber: an integer field got a whole number written with a
	// fraction or an exponent (5.0, 1e2), which decoding takes once it is
	// written in digits.
	wholeNumber bool
}

// decodeObject decodes a JSON object (empty or null means {}) into v, a
// pointer to a struct or map: first the defaults of v's fields, then raw over
// them, so a member the caller left out holds its `default:"..."`. It reports
// every problem at once, not the first, so an operator fixes a config block
// in one pass rather than one restart per mistake. With checkSchema it also
// reports what the schema derived from v refuses and decoding alone lets
// through (schemaProblems).
func decodeObject(raw json.RawMessage, v any, checkSchema bool) []problem {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return []problem{{message: "expected an object, got " + jsonKind(raw)}}
	}
	t := structType(v)
	if t == nil {
		if err := json.Unmarshal(raw, v); err != nil {
			return []problem{{message: err.Error()}}
		}
		return nil
	}
	out := memberProblems(top, t, "")
	if slices.ContainsFunc(out, func(p problem) bool { return p.wholeNumber }) {
		// JSON Schema's "integer" is any number without a fractional part,
		// so the gateway lets 5.0 and 1e2 through; encoding/json takes only
		// digits into a Go integer.
		if fixed, ok := integersAsDigits(raw); ok && json.Unmarshal(fixed, &top) == nil {
			raw = fixed
			out = memberProblems(top, t, "")
		}
	}
	if checkSchema {
		reported := map[string]bool{}
		for _, p := range out {
			reported[p.path] = true
		}
		for _, p := range schemaProblems(top, t, "") {
			if !reported[p.path] {
				out = append(out, p)
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	changed := false
	filled, err := fillDefaults(top, t, &changed)
	if err != nil {
		return []problem{{message: err.Error()}}
	}
	// Most calls give every member or have no defaults: decode them as sent.
	if changed {
		if raw, err = json.Marshal(filled); err != nil {
			return []problem{{message: err.Error()}}
		}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return []problem{{message: err.Error()}}
	}
	return nil
}

// memberProblems lists what keeps obj from decoding into struct t: names t
// has no field for and values of the wrong type, each at its dotted path,
// going into nested objects and lists of them.
func memberProblems(obj map[string]json.RawMessage, t reflect.Type, prefix string) []problem {
	out := unknownMembers(obj, t, prefix)
	for _, f := range fieldsOf(t) {
		raw, given := obj[f.name]
		if !given {
			continue
		}
		out = append(out, valueProblems(raw, f.sf.Type, prefix+f.name)...)
	}
	return out
}

// valueProblems is memberProblems for one value of type t at path.
func valueProblems(raw json.RawMessage, t reflect.Type, path string) []problem {
	et := t
	for et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	switch {
	case reflect.PointerTo(et).Implements(unmarshalerType):
		// It reads its JSON its own way; only decoding can judge it.
	case et.Kind() == reflect.Struct && et != timeType:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil && obj != nil {
			return memberProblems(obj, et, path+".")
		}
	case et.Kind() == reflect.Slice && et.Elem().Kind() != reflect.Uint8:
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil && list != nil {
			var out []problem
			for i, item := range list {
				out = append(out, valueProblems(item, et.Elem(), path+"."+strconv.Itoa(i))...)
			}
			return out
		}
	}
	err := json.Unmarshal(raw, reflect.New(t).Interface())
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr):
		if typeErr.Field != "" {
			path += "." + typeErr.Field
		}
		whole := integralNumber(typeErr) && strings.ContainsAny(typeErr.Value, ".eE")
		return []problem{{path: path, message: typeProblem(typeErr), wholeNumber: whole}}
	}
	return []problem{{path: path, message: err.Error()}}
}

// integralNumber reports whether a type error is a whole number refused by a
// Go integer: written with a fraction or an exponent, or out of its range.
func integralNumber(e *json.UnmarshalTypeError) bool {
	literal, ok := strings.CutPrefix(e.Value, "number ")
	if !ok || !isIntegerKind(e.Type) {
		return false
	}
	f, _, err := big.ParseFloat(literal, 10, 256, big.ToNearestEven)
	return err == nil && f.IsInt()
}

// typeProblem words a type error; a whole number out of a Go integer's range
// is told the range, not that it is no integer.
func typeProblem(e *json.UnmarshalTypeError) string {
	if integralNumber(e) {
		lo, hi := integerRange(e.Type)
		return fmt.Sprintf("expected an integer from %s to %s, got %s", lo, hi, strings.TrimPrefix(e.Value, "number "))
	}
	return fmt.Sprintf("expected %s, got %s", typeWords(e.Type), valueWords(e.Value))
}

func isIntegerKind(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// integerRange is the smallest and largest value of an integer type.
func integerRange(t reflect.Type) (string, string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bits := uint(t.Bits())
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "0", new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1)).String()
	}
	hi := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits-1), big.NewInt(1))
	return new(big.Int).Neg(new(big.Int).Add(hi, big.NewInt(1))).String(), hi.String()
}

// integersAsDigits rewrites every whole number of raw written with a fraction
// or an exponent (5.0, 1e2) in digits; ok is false when there was none.
func integersAsDigits(raw []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil {
		return nil, false
	}
	changed := false
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case json.Number:
			if !strings.ContainsAny(string(x), ".eE") {
				return x
			}
			f, _, err := big.ParseFloat(string(x), 10, 256, big.ToNearestEven)
			if err != nil || !f.IsInt() || f.MantExp(nil) > 64 {
				return x // beyond every Go integer: left for decoding to refuse
			}
			i, _ := f.Int(nil)
			changed = true
			return json.Number(i.String())
		}
		return v
	}
	doc = walk(doc)
	if !changed {
		return nil, false
	}
	fixed, err := json.Marshal(doc)
	return fixed, err == nil
}

var unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

func structType(v any) reflect.Type {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// unknownMembers lists the names obj has that t has no field for, each at
// its path and with the nearest known name when one is close.
func unknownMembers(obj map[string]json.RawMessage, t reflect.Type, prefix string) []problem {
	known := map[string]bool{}
	var names []string
	for _, f := range fieldsOf(t) {
		known[f.name] = true
		names = append(names, f.name)
	}
	var out []problem
	for k := range obj {
		if !known[k] {
			out = append(out, problem{path: prefix + k, unknown: true, near: similar.Nearest(k, names)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// fillDefaults returns obj with the `default:"..."` of every field of t it
// leaves out, in objects nested in it too (a struct, a pointer to one, a list
// of them): the schema shows those defaults at every depth, so a member left
// out at any depth holds its default when the plugin reads it.
// changed is set when a default was filled in anywhere.
func fillDefaults(obj map[string]json.RawMessage, t reflect.Type, changed *bool) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	for _, f := range fieldsOf(t) {
		raw, given := out[f.name]
		if !given {
			if _, ok := f.sf.Tag.Lookup("default"); !ok {
				continue
			}
			d, err := defaultOf(f.sf)
			if err != nil {
				return nil, err
			}
			if out[f.name], err = json.Marshal(d); err != nil {
				return nil, err
			}
			*changed = true
			continue
		}
		filled, err := fillNested(raw, f.sf.Type, changed)
		if err != nil {
			return nil, err
		}
		out[f.name] = filled
	}
	return out, nil
}

// fillNested fills the defaults of a member's value when its type holds
// structs; anything else, or a value of the wrong shape, is left for
// decoding to judge.
func fillNested(raw json.RawMessage, t reflect.Type, changed *bool) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && t != timeType:
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			return raw, nil
		}
		here := false
		filled, err := fillDefaults(obj, t, &here)
		if err != nil || !here {
			return raw, err
		}
		*changed = true
		return json.Marshal(filled)
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil || list == nil {
			return raw, nil
		}
		here := false
		for i := range list {
			var err error
			if list[i], err = fillNested(list[i], t.Elem(), &here); err != nil {
				return nil, err
			}
		}
		if !here {
			return raw, nil
		}
		*changed = true
		return json.Marshal(list)
	}
	return raw, nil
}

// jsonProblem words a decoding error in JSON's terms, where and what was
// expected and found, never naming a Go type: it is read by whoever sent
// the JSON.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	if te.Field == "" {
		return fmt.Sprintf("expected %s, got %s", typeWords(te.Type), valueWords(te.Value))
	}
	return fmt.Sprintf("%q: expected %s, got %s", te.Field, typeWords(te.Type), valueWords(te.Value))
}

// typeWords names what a Go type accepts in JSON's words.
func typeWords(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "a list"
	}
	return "an object"
}

// valueWords names the JSON value encoding/json found ("string", "number",
// "number 1.5", ...).
func valueWords(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return v
}

// jsonKind names the kind of a JSON value that is not an object.
func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "a string"
	case '[':
		return "a list"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	case '{':
		return "malformed JSON"
	}
	if json.Valid(raw) {
		return "a number"
	}
	return "malformed JSON"
}
