// Package schema checks JSON values against JSON Schemas. It is the one
// validator the gateway runs before a call and plugintest runs in an author's
// tests, so a plugin meets in its tests exactly the refusals it meets in
// production.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/toolgate/toolgate/sdk/internal/similar"
)

// ErrExternalRef marks a schema that refers to a document outside itself. A
// plugin's schema must not make the gateway read files or fetch URLs.
var ErrExternalRef = errors.New("schema refers to a document outside itself; only in-document references (\"#/...\") are allowed")

// Schema is a compiled JSON Schema (draft 2020-12 unless it names another
// draft with $schema).
type Schema struct {
	compiled *jsonschema.Schema
	doc      any // the parsed document, to suggest names near an unknown one
}

// Compile compiles a schema; an empty one accepts any object.
func Compile(schema json.RawMessage) (*Schema, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		schema = []byte(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	// Meta-schemas of the known drafts are built in and never loaded; every
	// other document a $ref names is refused.
	c.UseLoader(refuseLoader{})
	const url = "toolgate:///schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		if le := (*jsonschema.LoadURLError)(nil); errors.As(err, &le) && errors.Is(le.Err, ErrExternalRef) {
			return nil, fmt.Errorf("%w: %s", ErrExternalRef, le.URL)
		}
		return nil, err
	}
	return &Schema{compiled: s, doc: doc}, nil
}

type refuseLoader struct{}

func (refuseLoader) Load(string) (any, error) { return nil, ErrExternalRef }

// Problem is one way a value breaks a schema.
type Problem struct {
	// Path is the JSON pointer of the value at fault ("" is the whole value).
	Path    string
	Message string
	// Unknown marks a member the schema does not allow; Suggestion is the
	// allowed name nearest to it, when one is close.
	Unknown    bool
	Suggestion string
}

// String is "at /path: message", with "/" for the whole value.
func (p Problem) String() string {
	path := p.Path
	if path == "" {
		path = "/"
	}
	return "at " + path + ": " + p.Message
}

// Error lists every problem of a value, ordered by path.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return strings.Join(parts, "; ")
}

// Validate checks a JSON value and returns a *Error listing every problem,
// or nil. No value, or null, is the empty object: that is what a call without
// arguments sends and what the SDK decodes it as.
func (s *Schema) Validate(value json.RawMessage) error {
	if v := bytes.TrimSpace(value); len(v) == 0 || bytes.Equal(v, []byte("null")) {
		value = []byte("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return &Error{Problems: []Problem{{Message: "not valid JSON: " + err.Error()}}}
	}
	err = s.compiled.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return &Error{Problems: s.problems(ve)}
}

// problems flattens a validation error to its leaves, each at the location
// of the bad value.
func (s *Schema) problems(ve *jsonschema.ValidationError) []Problem {
	var out []Problem
	var walk func(u *jsonschema.OutputUnit)
	walk = func(u *jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			if ap, ok := u.Error.Kind.(*kind.AdditionalProperties); ok {
				for _, name := range ap.Properties {
					out = append(out, Problem{
						Path: u.InstanceLocation + "/" + escape(name), Message: "unknown name " + quote(name),
						Unknown: true, Suggestion: similar.Nearest(name, s.namesAt(u.InstanceLocation)),
					})
				}
			} else if pat, ok := u.Error.Kind.(*kind.Pattern); ok {
				// The value itself is left out: in a plugin's config block it
				// may be a URL with a password or a token, and the message
				// reaches logs and the plugin's state that clients see.
				out = append(out, Problem{Path: u.InstanceLocation, Message: "does not match pattern " + quote(pat.Want)})
			} else {
				out = append(out, Problem{Path: u.InstanceLocation, Message: u.Error.String()})
			}
		}
		for i := range u.Errors {
			walk(&u.Errors[i])
		}
	}
	walk(ve.DetailedOutput())
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func escape(seg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~", "~0"), "/", "~1")
}

// ArgumentError says which arguments of a call break the tool's input
// schema. The gateway and plugintest refuse a call with it alike.
type ArgumentError struct {
	Tool     string
	Problems []string // "at /path: what was expected"
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %s", e.Tool, strings.Join(e.Problems, "; "))
}

// ValidateArguments checks a call's arguments (as Validate does) and returns an
// *ArgumentError worded in terms of arguments, or nil.
func (s *Schema) ValidateArguments(tool string, args json.RawMessage) error {
	err := s.Validate(args)
	var se *Error
	if !errors.As(err, &se) {
		return err
	}
	problems := make([]string, len(se.Problems))
	for i, p := range se.Problems {
		switch {
		case p.Unknown && p.Suggestion != "":
			p.Message = fmt.Sprintf("unknown argument; did you mean %q?", p.Suggestion)
		case p.Unknown:
			p.Message = "unknown argument"
		}
		problems[i] = p.String()
	}
	return &ArgumentError{Tool: tool, Problems: problems}
}
