// Package scenario runs YAML smoke tests against a gateway: the steps call
// tools and check what comes back. `toolgate test` runs it in CI, so that a
// deployment's config can be checked end to end (plugins start, tools answer,
// results look right) by people who write YAML, not Go.
//
// A scenario file:
//
//	name: hello
//	config: ../config.example.hcl   # relative to this file; or url: http://…/mcp
//	steps:
//	  - name: greet
//	    call: x_hello_greet           # through call_tool; `meta: filter_tools` calls a meta-tool
//	    args: {name: Ada}
//	    expect:
//	      success: true
//	      contains: "Hello, Ada"      # or a list; not_contains likewise
//	      json_path:
//	        - {path: greeting, equals: "Hello, Ada!"}
//	        - {path: missing, exists: false}
//	  - name: again
//	    call: x_hello_echo
//	    args: {text: "{{ steps.greet.json.greeting }}"}
//	    wait_for: {timeout: 30s, interval: 1s}   # repeat until expect holds
//	    expect: {contains: "Hello"}
//
// error_contains expects an isError result whose text has the string.
// Templates are {{ steps.NAME.json.PATH }}, {{ steps.NAME.text }} and
// {{ env.NAME }}; a string that is only a template takes the value's JSON type.
package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Scenario is one YAML file.
type Scenario struct {
	Name   string `yaml:"name"`
	Config string `yaml:"config"`
	URL    string `yaml:"url"`
	Steps  []Step `yaml:"steps"`

	// File is where the scenario was read from.
	File string `yaml:"-"`
}

// Step is one call and what its result must look like.
type Step struct {
	Name    string         `yaml:"name"`
	Call    string         `yaml:"call"`
	Meta    string         `yaml:"meta"`
	Args    map[string]any `yaml:"args"`
	Timeout Duration       `yaml:"timeout"`
	WaitFor *WaitFor       `yaml:"wait_for"`
	Expect  Expect         `yaml:"expect"`

	// Line is the step's line in File.
	Line int `yaml:"-"`
}

// WaitFor repeats a step until its expectations hold or Timeout passes.
type WaitFor struct {
	Timeout  Duration `yaml:"timeout"`
	Interval Duration `yaml:"interval"`
}

// Expect is what a step's result must satisfy; every field set must hold.
type Expect struct {
	// Success: the result is not isError (true) or is (false). Unset means
	// true unless ErrorContains is set.
	Success       *bool      `yaml:"success"`
	Contains      Strings    `yaml:"contains"`
	NotContains   Strings    `yaml:"not_contains"`
	ErrorContains string     `yaml:"error_contains"`
	JSONPath      []PathRule `yaml:"json_path"`
}

// PathRule checks one value of the result's JSON.
type PathRule struct {
	Path   string `yaml:"path"`
	Equals any    `yaml:"equals"`
	Exists *bool  `yaml:"exists"`

	hasEquals bool
}

// UnmarshalYAML notes whether equals was given, so `equals: null` checks
// for null instead of meaning nothing.
func (r *PathRule) UnmarshalYAML(n *yaml.Node) error {
	type plain PathRule
	if err := n.Decode((*plain)(r)); err != nil {
		return err
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "equals" {
			r.hasEquals = true
		}
	}
	return nil
}

// Strings is one string or a list of them.
type Strings []string

// UnmarshalYAML accepts a scalar or a sequence.
func (s *Strings) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*s = Strings{n.Value}
		return nil
	}
	var list []string
	if err := n.Decode(&list); err != nil {
		return err
	}
	*s = list
	return nil
}

// Duration is a time.Duration written as "30s" or "2m".
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		if _, nerr := strconv.ParseFloat(n.Value, 64); nerr == nil {
			return &shapeError{n.Line, fmt.Sprintf("%q has no unit; write %ss for seconds", n.Value, n.Value)}
		}
		return &shapeError{n.Line, fmt.Sprintf("%q is not a duration like 30s or 2m", n.Value)}
	}
	*d = Duration(v)
	return nil
}

// LoadError is a scenario file that cannot be run.
type LoadError struct {
	File    string
	Line    int
	Problem string
}

func (e *LoadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Problem)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Problem)
}

// Load reads and checks a scenario file. Unknown keys are errors, so a typo
// in an expectation cannot make a step pass by checking nothing.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &LoadError{File: path, Problem: err.Error()}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, syntaxError(path, data, err)
	}
	if len(doc.Content) == 0 {
		return nil, &LoadError{File: path, Problem: "the file is empty; a scenario needs a steps list"}
	}
	if e := checkShape(&doc); e != nil {
		return nil, &LoadError{File: path, Line: e.line, Problem: e.problem}
	}
	// Known fields stay checked in decoding too, so a key added to the
	// types but not to the shape check cannot be ignored.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		var se *shapeError
		if errors.As(err, &se) {
			return nil, &LoadError{File: path, Line: se.line, Problem: se.problem}
		}
		return nil, syntaxError(path, data, err)
	}
	s.File = path
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if s.Config != "" && !filepath.IsAbs(s.Config) {
		s.Config = filepath.Join(filepath.Dir(path), s.Config)
	}
	var lines struct {
		Steps []yaml.Node `yaml:"steps"`
	}
	if err := doc.Decode(&lines); err == nil {
		for i := range s.Steps {
			if i < len(lines.Steps) {
				s.Steps[i].Line = lines.Steps[i].Line
			}
		}
	}
	return &s, s.check()
}

func (s *Scenario) check() error {
	if len(s.Steps) == 0 {
		return &LoadError{File: s.File, Problem: "no steps"}
	}
	if s.Config != "" && s.URL != "" {
		return &LoadError{File: s.File, Problem: "give config or url, not both"}
	}
	names := map[string]bool{}
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Name == "" {
			st.Name = fmt.Sprintf("step-%d", i+1)
		}
		fail := func(problem string) error {
			return &LoadError{File: s.File, Line: st.Line, Problem: fmt.Sprintf("step %q: %s", st.Name, problem)}
		}
		switch {
		case names[st.Name]:
			return fail("name used twice")
		case (st.Call == "") == (st.Meta == ""):
			return fail("give exactly one of call (a tool, through call_tool) or meta (a meta-tool)")
		case st.Expect.ErrorContains != "" && st.Expect.Success != nil && *st.Expect.Success:
			return fail("error_contains expects an error; it contradicts success: true")
		case st.WaitFor != nil && st.WaitFor.Timeout < 0:
			return fail("wait_for.timeout must be positive")
		}
		for _, r := range st.Expect.JSONPath {
			if r.Path == "" {
				return fail("json_path rule without a path")
			}
			if !r.hasEquals && r.Exists == nil {
				return fail(fmt.Sprintf("json_path %q: give equals or exists", r.Path))
			}
			if _, err := parsePath(r.Path); err != nil {
				return fail(err.Error())
			}
		}
		names[st.Name] = true
	}
	return nil
}

// errNoTarget: neither the scenario nor the command line says which gateway.
var errNoTarget = errors.New("no gateway: the scenario names neither config nor url, and neither --config nor --url was given")
