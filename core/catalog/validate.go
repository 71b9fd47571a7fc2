package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/sdk/schema"
)

// ArgumentError says which arguments of a call break the tool's input schema.
type ArgumentError struct {
	Tool     string
	Problems []string // "at /path: what was expected"
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %s", e.Tool, strings.Join(e.Problems, "; "))
}

// ValidateArguments checks args against the tool's input schema with the
// validator plugintest uses too. A schema the plugin got wrong, or one that
// refers to documents outside itself, is reported, not silently skipped.
func (t *Tool) ValidateArguments(args json.RawMessage) error {
	t.schemaOnce.Do(func() { t.schema, t.schemaErr = schema.Compile(t.Def.InputSchema) })
	if t.schemaErr != nil {
		return fmt.Errorf("tool %s has an input schema that does not compile: %w", t.ID, t.schemaErr)
	}
	err := t.schema.Validate(args)
	var se *schema.Error
	if !errors.As(err, &se) {
		return err
	}
	return &ArgumentError{Tool: t.ID, Problems: ArgumentProblems(se)}
}

// ArgumentProblems words a schema error in terms of a call's arguments.
func ArgumentProblems(se *schema.Error) []string {
	out := make([]string, len(se.Problems))
	for i, p := range se.Problems {
		switch {
		case p.Unknown && p.Suggestion != "":
			p.Message = fmt.Sprintf("unknown argument; did you mean %q?", p.Suggestion)
		case p.Unknown:
			p.Message = "unknown argument"
		}
		out[i] = p.String()
	}
	return out
}
