package metatools

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
)

// Example builds arguments for a ready call_tool example from an input schema:
// every required property with a value the schema accepts where it can say
// so (the default, an enum or const value, an example, a value within the
// bounds and of the format asked for), else a placeholder of its type.
func Example(schema json.RawMessage) map[string]any {
	var s schemaNode
	if json.Unmarshal(schema, &s) != nil {
		return map[string]any{}
	}
	out := map[string]any{}
	names := append([]string(nil), s.Required...)
	sort.Strings(names)
	for _, name := range names {
		if p, ok := s.Properties[name]; ok {
			out[name] = placeholder(name, p, 0)
		} else {
			out[name] = "<" + name + ">"
		}
	}
	return out
}

// schemaNode is what Example reads of a schema. Keywords whose shape
// differs between drafts are kept raw and read where used.
type schemaNode struct {
	Type       any                   `json:"type"`
	Properties map[string]schemaNode `json:"properties"`
	Required   []string              `json:"required"`
	Items      json.RawMessage       `json:"items"` // a schema, or a list of them before 2020-12
	Enum       []any                 `json:"enum"`
	Const      json.RawMessage       `json:"const"`
	Default    any                   `json:"default"`
	Examples   []any                 `json:"examples"`
	AnyOf      []schemaNode          `json:"anyOf"`
	OneOf      []schemaNode          `json:"oneOf"`

	Minimum          *float64        `json:"minimum"`
	Maximum          *float64        `json:"maximum"`
	ExclusiveMinimum json.RawMessage `json:"exclusiveMinimum"` // a number, or a bool before draft 6
	ExclusiveMaximum json.RawMessage `json:"exclusiveMaximum"`
	MultipleOf       *float64        `json:"multipleOf"`
	MinLength        *int            `json:"minLength"`
	MaxLength        *int            `json:"maxLength"`
	Format           string          `json:"format"`
	MinItems         *int            `json:"minItems"`
	MaxItems         *int            `json:"maxItems"`
}

func (n schemaNode) typ() string {
	switch t := n.Type.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	if n.Properties != nil {
		return "object"
	}
	return ""
}

// depthLimit bounds the nesting an example follows, for recursive schemas.
const depthLimit = 4

func placeholder(name string, n schemaNode, depth int) any {
	var c any
	switch {
	case n.Default != nil:
		return n.Default
	case len(n.Const) > 0 && json.Unmarshal(n.Const, &c) == nil:
		return c
	case len(n.Enum) > 0:
		return n.Enum[0]
	case len(n.Examples) > 0:
		return n.Examples[0]
	}
	if n.typ() == "" {
		// A union with no type of its own: an example of its first branch
		// that is not null.
		for _, alt := range append(n.AnyOf, n.OneOf...) {
			if alt.typ() != "null" && depth < depthLimit {
				return placeholder(name, alt, depth+1)
			}
		}
	}
	switch n.typ() {
	case "integer":
		return n.number(true)
	case "number":
		return n.number(false)
	case "boolean":
		return true
	case "string":
		return n.text(name)
	case "array":
		return n.list(name, depth)
	case "object":
		out := map[string]any{}
		if depth < depthLimit {
			for _, r := range n.Required {
				if p, ok := n.Properties[r]; ok {
					out[r] = placeholder(r, p, depth+1)
				}
			}
		}
		return out
	case "null":
		return nil
	}
	return n.text(name)
}

// number is 1 moved into the schema's bounds and onto its multipleOf.
func (n schemaNode) number(integer bool) any {
	lo, loOpen, hasLo := bound(n.Minimum, n.ExclusiveMinimum)
	hi, hiOpen, hasHi := bound(n.Maximum, n.ExclusiveMaximum)
	step := 0.0
	if n.MultipleOf != nil && *n.MultipleOf > 0 {
		step = *n.MultipleOf
	}
	if integer && step == 0 {
		step = 1
	}
	v := 1.0
	if hasLo && (v < lo || (loOpen && v <= lo)) {
		v = lo
		if loOpen && step == 0 {
			v = lo + 1
			if hasHi {
				v = lo + (hi-lo)/2
			}
		}
	}
	if hasHi && (v > hi || (hiOpen && v >= hi)) {
		v = hi
		if hiOpen && step == 0 {
			v = hi - 1
			if hasLo {
				v = lo + (hi-lo)/2
			}
		}
	}
	if step > 0 {
		// The smallest multiple within the lower bound, else the largest
		// within the upper one.
		m := math.Ceil(v/step) * step
		if hasLo && (m < lo || (loOpen && m <= lo)) {
			m += step
		}
		if hasHi && (m > hi || (hiOpen && m >= hi)) {
			m = math.Floor(v/step) * step
			if m > hi || (hiOpen && m >= hi) {
				m -= step
			}
		}
		v = m
	}
	if integer {
		return int64(v)
	}
	return v
}

// bound reads a lower or upper bound: the inclusive keyword, or the
// exclusive one as a number (draft 6 on) or as a flag on the inclusive one.
func bound(inclusive *float64, exclusive json.RawMessage) (v float64, open, ok bool) {
	var num float64
	var flag bool
	switch {
	case len(exclusive) > 0 && json.Unmarshal(exclusive, &num) == nil:
		if inclusive == nil || num >= *inclusive {
			return num, true, true
		}
	case len(exclusive) > 0 && json.Unmarshal(exclusive, &flag) == nil && flag && inclusive != nil:
		return *inclusive, true, true
	}
	if inclusive != nil {
		return *inclusive, false, true
	}
	return 0, false, false
}

// formatExamples are values of the formats a validator may assert.
var formatExamples = map[string]string{
	"date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "time": "12:00:00Z",
	"duration": "PT1M", "email": "user@example.com", "idn-email": "user@example.com",
	"hostname": "example.com", "idn-hostname": "example.com",
	"ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
	"uri": "https://example.com/", "uri-reference": "https://example.com/",
	"iri": "https://example.com/", "iri-reference": "https://example.com/", "url": "https://example.com/",
	"uuid": "00000000-0000-0000-0000-000000000000", "json-pointer": "/", "regex": ".*",
}

// text is a string placeholder, "<name>", or a value of the schema's format,
// made as long as its length bounds ask.
func (n schemaNode) text(name string) string {
	s, ok := formatExamples[n.Format]
	if !ok {
		s = "<" + name + ">"
	}
	if n.MaxLength != nil && len([]rune(s)) > *n.MaxLength {
		s = strings.Repeat("x", max(*n.MaxLength, 0))
	}
	if n.MinLength != nil && len([]rune(s)) < *n.MinLength {
		s += strings.Repeat("x", *n.MinLength-len([]rune(s)))
	}
	return s
}

// list is an array of as many items as minItems asks, at least one unless
// maxItems forbids it.
func (n schemaNode) list(name string, depth int) []any {
	count := 1
	if n.MinItems != nil && *n.MinItems > count {
		count = *n.MinItems
	}
	if n.MaxItems != nil && *n.MaxItems < count {
		count = *n.MaxItems
	}
	var items schemaNode
	if len(n.Items) == 0 || json.Unmarshal(n.Items, &items) != nil || depth >= depthLimit {
		return []any{}
	}
	out := make([]any, 0, count)
	for range count {
		out = append(out, placeholder(name, items, depth+1))
	}
	return out
}
