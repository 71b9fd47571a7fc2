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

// nearest returns the candidate within edit distance 2 of s (ignoring case),
// or "" when none is that close.
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
