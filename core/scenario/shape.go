package scenario

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate/internal/similar"
)

// The keys each mapping of a scenario file may have, in the order the
// file format lists them.
var (
	fileKeys    = []string{"name", "config", "url", "steps"}
	stepKeys    = []string{"name", "call", "meta", "args", "timeout", "wait_for", "expect"}
	waitForKeys = []string{"timeout", "interval"}
	expectKeys  = []string{"success", "contains", "not_contains", "error_contains", "json_path"}
	ruleKeys    = []string{"path", "equals", "exists"}
)

// shapeError is a key or value in the wrong place, found before decoding,
// so the message speaks of the file's keys rather than of Go types.
type shapeError struct {
	line    int
	problem string
}

func (e *shapeError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.problem) }

// checkShape walks a parsed scenario file and reports the first unknown key
// (with the closest known one) or value of the wrong kind.
func checkShape(doc *yaml.Node) *shapeError {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return &shapeError{root.Line, "a scenario is a mapping with a steps list (steps: [...]), not " + kindName(root)}
	}
	return eachKey(root, "", fileKeys, func(key string, v *yaml.Node) *shapeError {
		if key != "steps" {
			return nil
		}
		if v.Kind != yaml.SequenceNode {
			return &shapeError{v.Line, "steps must be a list of steps (each starting with -), not " + kindName(v)}
		}
		for i, st := range v.Content {
			if err := checkStep(st, i); err != nil {
				return err
			}
		}
		return nil
	})
}

func checkStep(st *yaml.Node, i int) *shapeError {
	where := fmt.Sprintf("step %d", i+1)
	if st.Kind != yaml.MappingNode {
		return &shapeError{st.Line, where + " must be a mapping (call: ..., args: ..., expect: ...), not " + kindName(st)}
	}
	for j := 0; j+1 < len(st.Content); j += 2 {
		if st.Content[j].Value == "name" && st.Content[j+1].Kind == yaml.ScalarNode {
			where = fmt.Sprintf("step %q", st.Content[j+1].Value)
		}
	}
	return eachKey(st, where+": ", stepKeys, func(key string, v *yaml.Node) *shapeError {
		switch key {
		case "args":
			if v.Kind != yaml.MappingNode && !isNull(v) {
				return &shapeError{v.Line, where + ": args must be a mapping of argument names to values, like {name: Ada}, not " + kindName(v)}
			}
		case "wait_for":
			if v.Kind != yaml.MappingNode {
				return &shapeError{v.Line, where + ": wait_for must be a mapping like {timeout: 30s, interval: 1s}, not " + kindName(v)}
			}
			return eachKey(v, where+": wait_for: ", waitForKeys, nil)
		case "expect":
			if v.Kind != yaml.MappingNode {
				return &shapeError{v.Line, where + ": expect must be a mapping like {contains: text}, not " + kindName(v)}
			}
			return eachKey(v, where+": expect: ", expectKeys, func(key string, v *yaml.Node) *shapeError {
				if key != "json_path" {
					return nil
				}
				if v.Kind != yaml.SequenceNode {
					return &shapeError{v.Line, where + ": expect.json_path must be a list like [{path: a.b, equals: 1}], not " + kindName(v)}
				}
				for _, r := range v.Content {
					if r.Kind != yaml.MappingNode {
						return &shapeError{r.Line, where + ": each json_path rule is a mapping like {path: a.b, equals: 1}, not " + kindName(r)}
					}
					if err := eachKey(r, where+": json_path rule: ", ruleKeys, nil); err != nil {
						return err
					}
				}
				return nil
			})
		}
		return nil
	})
}

// eachKey checks m's keys against known and calls visit, when not nil, for
// each key and its value.
func eachKey(m *yaml.Node, where string, known []string, visit func(key string, v *yaml.Node) *shapeError) *shapeError {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !slices.Contains(known, k.Value) {
			problem := fmt.Sprintf("%sunknown key %q", where, k.Value)
			if s := similar.Closest(k.Value, known); s != "" {
				problem += fmt.Sprintf("; did you mean %q?", s)
			}
			return &shapeError{k.Line, problem + " (known here: " + strings.Join(known, ", ") + ")"}
		}
		if visit != nil {
			if err := visit(k.Value, m.Content[i+1]); err != nil {
				return err
			}
		}
	}
	return nil
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "that"
}
