package scenario

import (
	"errors"
	"testing"
)

// A YAML syntax error is reported at the line a reader would fix, counted
// from 1: yaml.v3's own line is, for some errors, one early (counted from
// 0), the start of the enclosing list, the end of the file, or missing.
func TestSyntaxErrorLines(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		line       int
		problem    string
	}{
		{"bad indentation", "name: x\nsteps:\n  - call: a\n    name: b\n   args: {}\n  - call: c\n",
			5, "did not find expected '-' indicator"},
		{"unclosed quote on the first line", "name: \"x\nsteps:\n  - call: a\n",
			1, "found unexpected end of stream"},
		{"unclosed quote further down", "steps:\n  - call: a\n    name: 'b\n  - call: c\n",
			3, "found unexpected end of stream"},
		{"tab in the indentation of a mapping", "steps:\n  - call: a\n\tname: b\n",
			3, "found a tab character that violates indentation"},
		{"tab before a list item", "steps:\n\t- call: a\n",
			2, "found character that cannot start any token"},
		{"unclosed flow mapping", "steps:\n  - call: a\n    args: {text: \"a\"\n  - call: b\n",
			3, "did not find expected ',' or '}'"},
		{"problem on the first line", "name: x: y\nsteps:\n  - call: a\n",
			1, "mapping values are not allowed in this context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.body)
			_, err := Load(path)
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load = %v, want a *LoadError", err)
			}
			want := LoadError{File: path, Line: tc.line, Problem: tc.problem}
			if *le != want {
				t.Errorf("Load = %q\nwant   %q", le, &want)
			}
		})
	}
}

// A long scenario is narrowed by bisection before the walk back, so its
// fault is found at the same line as in a short one wherever it lies.
func TestSyntaxErrorLinesLongFile(t *testing.T) {
	steps := func(n int) string {
		s := ""
		for i := 0; i < n; i++ {
			s += "  - call: a\n    args: {}\n"
		}
		return s
	}
	for _, tc := range []struct {
		name string
		body string
		line int
	}{
		{"fault near the top", "steps:\n  - call: a\n    name: b\n   args: {}\n" + steps(3000), 4},
		{"fault near the end", "steps:\n" + steps(3000) + "  - call: a\n    name: b\n   args: {}\n" + steps(3), 6004},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(write(t, tc.body))
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("Load = %v, want a *LoadError", err)
			}
			if le.Line != tc.line || le.Problem != "did not find expected '-' indicator" {
				t.Errorf("Load = %q, want line %d: did not find expected '-' indicator", le, tc.line)
			}
		})
	}
}
