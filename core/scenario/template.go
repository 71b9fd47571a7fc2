package scenario

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// stepResult is what later steps may refer to.
type stepResult struct {
	text    string
	json    any // decoded JSON of the result; nil when it has none
	isError bool
}

var templatePattern = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// render replaces templates in every string of v. A string that is exactly
// one template becomes the referenced value with its JSON type.
func render(v any, results map[string]*stepResult) (any, error) {
	switch x := v.(type) {
	case string:
		return renderString(x, results)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			r, err := render(val, results)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			r, err := render(val, results)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func renderString(s string, results map[string]*stepResult) (any, error) {
	if m := templatePattern.FindStringSubmatchIndex(s); m != nil && m[0] == 0 && m[1] == len(s) {
		return resolve(s[m[2]:m[3]], results)
	}
	var firstErr error
	out := templatePattern.ReplaceAllStringFunc(s, func(t string) string {
		expr := templatePattern.FindStringSubmatch(t)[1]
		v, err := resolve(expr, results)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return t
		}
		if str, ok := v.(string); ok {
			return str
		}
		b, _ := json.Marshal(v)
		return string(b)
	})
	return out, firstErr
}

// renderText is render for a string that must stay a string.
func renderText(s string, results map[string]*stepResult) (string, error) {
	v, err := renderString(s, results)
	if err != nil {
		return "", err
	}
	if str, ok := v.(string); ok {
		return str, nil
	}
	b, _ := json.Marshal(v)
	return string(b), nil
}

// TemplateError is a template that names nothing that exists.
type TemplateError struct {
	Expr, Problem string
}

func (e *TemplateError) Error() string { return fmt.Sprintf("{{ %s }}: %s", e.Expr, e.Problem) }

// resolve evaluates steps.NAME.json[.PATH], steps.NAME.text,
// steps.NAME.is_error or env.NAME.
func resolve(expr string, results map[string]*stepResult) (any, error) {
	if name, ok := strings.CutPrefix(expr, "env."); ok {
		v, set := os.LookupEnv(name)
		if !set {
			return nil, &TemplateError{Expr: expr, Problem: "environment variable " + name + " is not set"}
		}
		return v, nil
	}
	rest, ok := strings.CutPrefix(expr, "steps.")
	if !ok {
		return nil, &TemplateError{Expr: expr, Problem: "want steps.NAME.json.PATH, steps.NAME.text or env.NAME"}
	}
	name, field, _ := strings.Cut(rest, ".")
	r, ok := results[name]
	if !ok {
		return nil, &TemplateError{Expr: expr, Problem: fmt.Sprintf("no step named %q has run before this one", name)}
	}
	switch {
	case field == "text":
		return r.text, nil
	case field == "is_error":
		return r.isError, nil
	case field == "json":
		return r.json, nil
	case strings.HasPrefix(field, "json."), strings.HasPrefix(field, "json["):
		path := strings.TrimPrefix(field, "json")
		v, found, err := lookup(r.json, path)
		if err != nil {
			return nil, &TemplateError{Expr: expr, Problem: err.Error()}
		}
		if !found {
			return nil, &TemplateError{Expr: expr, Problem: fmt.Sprintf("step %q's result has nothing at %s", name, strings.TrimPrefix(path, "."))}
		}
		return v, nil
	}
	return nil, &TemplateError{Expr: expr, Problem: "after the step name, want json, json.PATH, text or is_error"}
}
