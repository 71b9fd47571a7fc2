package schema

import (
	"sort"
	"strings"
)

// namesAt lists the property names the schema allows for the object at the
// JSON pointer loc, following properties, additionalProperties and items. A
// location it cannot follow (through $ref or a combinator) has none.
func (s *Schema) namesAt(loc string) []string {
	node, _ := s.doc.(map[string]any)
	if loc != "" {
		for _, seg := range strings.Split(strings.TrimPrefix(loc, "/"), "/") {
			seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
			node = step(node, seg)
			if node == nil {
				return nil
			}
		}
	}
	props, _ := node["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// step goes from a schema to the schema of its member or element seg.
func step(node map[string]any, seg string) map[string]any {
	if node == nil {
		return nil
	}
	if props, ok := node["properties"].(map[string]any); ok {
		if p, ok := props[seg].(map[string]any); ok {
			return p
		}
	}
	if ap, ok := node["additionalProperties"].(map[string]any); ok {
		return ap
	}
	if items, ok := node["items"].(map[string]any); ok {
		return items
	}
	return nil
}
