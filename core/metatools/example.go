package metatools

import (
	"encoding/json"
	"sort"
)

// Example builds arguments for a ready call_tool example from an input schema:
// every required property with a placeholder of its type (the default, the
// first enum value, or a typed placeholder).
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

type schemaNode struct {
	Type       any                   `json:"type"`
	Properties map[string]schemaNode `json:"properties"`
	Required   []string              `json:"required"`
	Items      *schemaNode           `json:"items"`
	Enum       []any                 `json:"enum"`
	Default    any                   `json:"default"`
	Examples   []any                 `json:"examples"`
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

func placeholder(name string, n schemaNode, depth int) any {
	switch {
	case n.Default != nil:
		return n.Default
	case len(n.Enum) > 0:
		return n.Enum[0]
	case len(n.Examples) > 0:
		return n.Examples[0]
	}
	switch n.typ() {
	case "integer":
		return 1
	case "number":
		return 1.0
	case "boolean":
		return true
	case "array":
		if n.Items != nil && depth < 4 {
			return []any{placeholder(name, *n.Items, depth+1)}
		}
		return []any{}
	case "object":
		out := map[string]any{}
		if depth < 4 {
			for _, r := range n.Required {
				if p, ok := n.Properties[r]; ok {
					out[r] = placeholder(r, p, depth+1)
				}
			}
		}
		return out
	}
	return "<" + name + ">"
}
