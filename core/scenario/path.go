package scenario

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// pathStep is one key or index of a path like `items[0].name`.
type pathStep struct {
	key   string
	index int
	isIdx bool
}

// parsePath reads `a.b[2].c`; a leading `$` or `$.` is allowed.
func parsePath(p string) ([]pathStep, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(p, "$"), ".")
	var out []pathStep
	for s != "" {
		switch s[0] {
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: missing ]", p)
			}
			n, err := strconv.Atoi(s[1:end])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("path %q: %q is not an index", p, s[1:end])
			}
			out = append(out, pathStep{index: n, isIdx: true})
			s = s[end+1:]
		case '.':
			s = s[1:]
			if s == "" || s[0] == '.' || s[0] == '[' {
				return nil, fmt.Errorf("path %q: empty key", p)
			}
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			out = append(out, pathStep{key: s[:end]})
			s = s[end:]
		}
	}
	return out, nil
}

// lookup finds the value at path in v (decoded JSON).
func lookup(v any, path string) (any, bool, error) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, false, err
	}
	for _, st := range steps {
		switch node := v.(type) {
		case map[string]any:
			if st.isIdx {
				return nil, false, nil
			}
			var ok bool
			if v, ok = node[st.key]; !ok {
				return nil, false, nil
			}
		case []any:
			if !st.isIdx || st.index >= len(node) {
				return nil, false, nil
			}
			v = node[st.index]
		default:
			return nil, false, nil
		}
	}
	return v, true, nil
}

// normalize turns a YAML-decoded value into what encoding/json would decode
// from the same JSON, so numbers compare as float64 and maps by string keys.
func normalize(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}
