package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/core/client"
)

func write(t testing.TB, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	s, err := Load(write(t, "config: ../gw.hcl\nsteps:\n  - call: x_a\n    expect: {contains: [a, b], json_path: [{path: x, equals: null}]}\n  - name: two\n    meta: list_tools\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "s" || s.Steps[0].Name != "step-1" || s.Steps[0].Line != 3 || s.Steps[1].Line != 5 ||
		len(s.Steps[0].Expect.Contains) != 2 || !s.Steps[0].Expect.JSONPath[0].hasEquals ||
		s.Config != filepath.Join(filepath.Dir(filepath.Dir(s.File)), "gw.hcl") {
		t.Errorf("loaded %+v", s)
	}
	for body, want := range map[string]string{
		"steps: []\n":                                                                    "no steps",
		"steps:\n  - call: a\n    expects: {}\n":                                         `:3: step 1: unknown key "expects"; did you mean "expect"?`,
		"steps:\n  - call: a\n    meta: b\n":                                             "exactly one of call",
		"steps:\n  - name: a\n    call: a\n  - name: a\n    call: b\n":                   `:4: step "a": name used twice`,
		"steps:\n  - call: a\n    expect: {json_path: [{path: x}]}\n":                    "give equals or exists",
		"steps:\n  - call: a\n    expect: {json_path: [{path: 'a[x]', exists: true}]}\n": "is not an index",
		"steps:\n  - call: a\n    timeout: soon\n":                                       "not a duration",
		"steps:\n  - call: a\n    expect: {success: true, error_contains: x}\n":          "contradicts",
		"url: http://x\nconfig: y\nsteps:\n  - call: a\n":                                "not both",
		"":                              "the file is empty",
		"# only a comment\n":            "the file is empty",
		"- call: a\n":                   ":1: a scenario is a mapping with a steps list",
		"name: x\nstep:\n  - call: a\n": `:2: unknown key "step"; did you mean "steps"?`,
		"steps: {call: a}\n":            ":1: steps must be a list",
		"steps:\n  - x_hello_greet\n":   `:2: step 1 must be a mapping`,
		"steps:\n  - name: g\n    call: a\n    expect:\n      contain: hi\n":    `:5: step "g": expect: unknown key "contain"; did you mean "contains"?`,
		"steps:\n  - call: a\n    args: [Ada]\n":                                ":3: step 1: args must be a mapping",
		"steps:\n  - call: a\n    expect: hi\n":                                 ":3: step 1: expect must be a mapping",
		"steps:\n  - call: a\n    expect: {json_path: {path: x}}\n":             "expect.json_path must be a list",
		"steps:\n  - call: a\n    expect: {json_path: [{path: x, equal: 1}]}\n": `json_path rule: unknown key "equal"; did you mean "equals"?`,
		"steps:\n  - call: a\n    wait_for: {timout: 3s}\n":                     `wait_for: unknown key "timout"; did you mean "timeout"?`,
		"steps:\n  - call: a\n    timeout: 5\n":                                 `.yaml:3: "5" has no unit; write 5s for seconds`,
		"steps:\n  - call: a\n    timeout: soon\n\n":                            `.yaml:3: "soon" is not a duration like 30s or 2m`,
		"steps:\n  - call: a\n    args: {text: \"a\"\n  - call: b\n":            `did not find expected ',' or '}'`,
		"steps:\n\t- call: a\n":                                                 `.yaml:2: found character that cannot start any token`,
	} {
		_, err := Load(write(t, body))
		var le *LoadError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
		// Every problem in a file's text is at a file:line (yaml.v3 counts
		// the lines of a parser error from 0, of a scanner error from 1).
		if le != nil && le.Line == 0 && strings.Contains(body, "\n") && !strings.Contains(want, "the file is empty") && want != "no steps" && want != "not both" {
			t.Errorf("%q: %v has no line", body, err)
		}
	}
}

func TestLookup(t *testing.T) {
	doc := map[string]any{"items": []any{map[string]any{"id": "a"}, map[string]any{"id": "b"}}, "n": 1.0}
	for path, want := range map[string]any{"items[1].id": "b", "$.n": 1.0, "items[0]": map[string]any{"id": "a"}} {
		got, ok, err := lookup(doc, path)
		if err != nil || !ok || jsonText(got) != jsonText(want) {
			t.Errorf("%s = %v %v %v", path, got, ok, err)
		}
	}
	for _, path := range []string{"items[2]", "n.x", "items.id", "missing"} {
		if _, ok, err := lookup(doc, path); ok || err != nil {
			t.Errorf("%s found (%v)", path, err)
		}
	}
}

func TestRender(t *testing.T) {
	t.Setenv("SCENARIO_TEST_VAR", "env-value")
	results := map[string]*stepResult{"create": {text: "made", json: map[string]any{"id": 42.0, "tags": []any{"x"}}}}
	got, err := render(map[string]any{
		"id": "{{ steps.create.json.id }}", "msg": "id={{steps.create.json.id}} {{ steps.create.text }}",
		"tag": "{{ steps.create.json.tags[0] }}", "env": "{{ env.SCENARIO_TEST_VAR }}", "n": 1,
	}, results)
	if err != nil || jsonText(got) != `{"env":"env-value","id":42,"msg":"id=42 made","n":1,"tag":"x"}` {
		t.Errorf("render = %s, %v", jsonText(got), err)
	}
	for expr, want := range map[string]string{
		"{{ steps.nope.text }}":        `no step named "nope"`,
		"{{ steps.create.json.zz }}":   "nothing at zz",
		"{{ steps.create.other }}":     "want json",
		"{{ env.SCENARIO_UNSET_VAR }}": "not set",
		"{{ what }}":                   "want steps.NAME",
	} {
		var te *TemplateError
		if _, err := render(expr, results); !errors.As(err, &te) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", expr, err, want)
		}
	}
}

func TestExpect(t *testing.T) {
	ok := &client.ToolResult{Content: []client.Content{{Type: "text", Text: "Hello, Ada!"}}, StructuredContent: []byte(`{"greeting":"Hello, Ada!","n":2}`)}
	bad := &client.ToolResult{IsError: true, Content: []client.Content{{Type: "text", Text: "name must not be empty"}}}
	no, yes := false, true
	for _, tc := range []struct {
		e    Expect
		res  *client.ToolResult
		want string
	}{
		{Expect{}, ok, ""},
		{Expect{}, bad, "expect.success: the tool answered with an error"},
		{Expect{Success: &no}, bad, ""},
		{Expect{ErrorContains: "empty"}, bad, ""},
		{Expect{ErrorContains: "empty"}, ok, "expected an error result"},
		{Expect{ErrorContains: "full"}, bad, `expect.error_contains "full"`},
		{Expect{Contains: Strings{"Ada", "Bob"}}, ok, `expect.contains "Bob": not in the result text "Hello, Ada!"`},
		{Expect{NotContains: Strings{"Ada"}}, ok, `expect.not_contains "Ada": found`},
		{Expect{JSONPath: []PathRule{{Path: "n", Equals: 2, hasEquals: true}}}, ok, ""},
		{Expect{JSONPath: []PathRule{{Path: "n", Equals: "2", hasEquals: true}}}, ok, `expect.json_path "n" equals "2": got 2`},
		{Expect{JSONPath: []PathRule{{Path: "x", Exists: &yes}}}, ok, `expect.json_path "x" exists: nothing at that path`},
		{Expect{JSONPath: []PathRule{{Path: "n", Exists: &no}}}, ok, `exists: false: it is there: 2`},
		{Expect{Success: &no, JSONPath: []PathRule{{Path: "x", Exists: &yes}}}, bad, "the result has no JSON"},
	} {
		got, err := tc.e.check(tc.res, nil)
		if err != nil || (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, %v; want %q", tc.e, got, err, tc.want)
		}
	}
}

// FuzzLoad: any file is either a scenario or a LoadError, never a panic.
func FuzzLoad(f *testing.F) {
	f.Add("steps:\n  - call: a\n    args: {x: 1}\n    expect: {contains: a, json_path: [{path: 'a[0].b', equals: 1}]}\n")
	f.Add("steps:\n  - meta: m\n    wait_for: {timeout: 1s}\n")
	f.Add("name: [\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body string) {
		path := filepath.Join(dir, "f.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		var le *LoadError
		if err != nil && !errors.As(err, &le) {
			t.Errorf("error of type %T: %v", err, err)
		}
	})
}
