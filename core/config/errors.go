package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Error is an invalid configuration: every problem found, each with the position it was
// written at. Problems from the environment or flags (see Config.Layer) have no Subject;
// their Summary names the variable or flag instead.
type Error struct {
	Diagnostics hcl.Diagnostics
	// Files holds the parsed sources by name so a caller can print source snippets with
	// hcl.NewDiagnosticTextWriter; nil for problems that did not come from a file.
	Files map[string]*hcl.File
}

// Error prints one line per problem, "file:line:col: message", in source order.
func (e *Error) Error() string {
	var b strings.Builder
	for _, d := range e.Diagnostics {
		if d.Severity != hcl.DiagError {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(formatDiag(d))
	}
	return b.String()
}

// Problem is one problem of an Error, for output other than text.
type Problem struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// Problems lists the problems Error prints, in the same order.
func (e *Error) Problems() []Problem {
	var out []Problem
	for _, d := range e.Diagnostics {
		if d.Severity != hcl.DiagError {
			continue
		}
		p := Problem{Message: diagMessage(d)}
		if d.Subject != nil {
			p.File, p.Line, p.Column = d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column
		}
		out = append(out, p)
	}
	return out
}

func formatDiag(d *hcl.Diagnostic) string {
	if d.Subject == nil {
		return diagMessage(d)
	}
	return pos(*d.Subject) + ": " + diagMessage(d)
}

func diagMessage(d *hcl.Diagnostic) string {
	msg := d.Summary
	if d.Detail != "" {
		msg += "; " + d.Detail
	}
	return msg
}

// pos is the "file:line:col" editors and terminals turn into links.
func pos(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// errorf is a problem of our own making at rng. The whole message goes into Summary so
// Error() prints it as written.
func errorf(rng hcl.Range, format string, args ...any) *hcl.Diagnostic {
	r := rng
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: fmt.Sprintf(format, args...), Subject: &r}
}

// sortDiags puts problems in source order: gohcl walks attributes in map order, and a
// reader fixes a file top to bottom.
func sortDiags(diags hcl.Diagnostics) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a != nil && b == nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		default:
			return a.Start.Byte < b.Start.Byte
		}
	})
}
