package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ArgumentError says which arguments of a call break the tool's input schema.
type ArgumentError struct {
	Tool     string
	Problems []string // "at /path: what was expected"
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %s", e.Tool, strings.Join(e.Problems, "; "))
}

type validator struct{ schema *jsonschema.Schema }

// ValidateArguments checks args against the tool's input schema (draft 2020-12
// unless the schema names another draft, such as draft-07). A schema the
// plugin got wrong is reported, not silently skipped.
func (t *Tool) ValidateArguments(args json.RawMessage) error {
	t.schemaOnce.Do(func() { t.schema, t.schemaErr = compile(t.ID, t.Def.InputSchema) })
	if t.schemaErr != nil {
		return fmt.Errorf("tool %s has an input schema that does not compile: %w", t.ID, t.schemaErr)
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return &ArgumentError{Tool: t.ID, Problems: []string{"arguments are not valid JSON: " + err.Error()}}
	}
	err = t.schema.schema.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	return &ArgumentError{Tool: t.ID, Problems: problems(ve)}
}

func compile(id string, schema json.RawMessage) (*validator, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = []byte(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	url := "toolgate://schema/" + id
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &validator{schema: s}, nil
}

// problems flattens a validation error to its leaves, each with the location
// of the bad value ("/" is the arguments object itself).
func problems(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			loc := u.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			out = append(out, fmt.Sprintf("at %s: %s", loc, u.Error.String()))
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.DetailedOutput())
	sort.Strings(out)
	return out
}
