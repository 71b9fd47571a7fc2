package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/toolgate/toolgate/core/client"
)

// check returns the first expectation res does not meet, as a sentence that
// names it; "" when all hold.
func (e *Expect) check(res *client.ToolResult, results map[string]*stepResult) (string, error) {
	text := allText(res)
	wantError := e.ErrorContains != "" || (e.Success != nil && !*e.Success)
	switch {
	case wantError && !res.IsError:
		return fmt.Sprintf("expected an error result, got success: %s", excerpt(text)), nil
	case !wantError && res.IsError:
		return fmt.Sprintf("expect.success: the tool answered with an error: %s", excerpt(text)), nil
	}
	if e.ErrorContains != "" {
		want, err := renderText(e.ErrorContains, results)
		if err != nil {
			return "", err
		}
		if !strings.Contains(text, want) {
			return fmt.Sprintf("expect.error_contains %q: not in the error text %s", want, excerpt(text)), nil
		}
	}
	for _, c := range e.Contains {
		want, err := renderText(c, results)
		if err != nil {
			return "", err
		}
		if !strings.Contains(text, want) {
			return fmt.Sprintf("expect.contains %q: not in the result text %s", want, excerpt(text)), nil
		}
	}
	for _, c := range e.NotContains {
		unwanted, err := renderText(c, results)
		if err != nil {
			return "", err
		}
		if strings.Contains(text, unwanted) {
			return fmt.Sprintf("expect.not_contains %q: found in the result text %s", unwanted, excerpt(text)), nil
		}
	}
	if len(e.JSONPath) == 0 {
		return "", nil
	}
	doc := resultJSON(res)
	for _, r := range e.JSONPath {
		if msg, err := r.check(doc, results); msg != "" || err != nil {
			return msg, err
		}
	}
	return "", nil
}

func (r *PathRule) check(doc any, results map[string]*stepResult) (string, error) {
	if doc == nil {
		return fmt.Sprintf("expect.json_path %q: the result has no JSON (no structuredContent, no JSON text)", r.Path), nil
	}
	got, found, err := lookup(doc, r.Path)
	if err != nil {
		return "", err
	}
	if r.Exists != nil && *r.Exists != found {
		if found {
			return fmt.Sprintf("expect.json_path %q exists: false: it is there: %s", r.Path, jsonText(got)), nil
		}
		return fmt.Sprintf("expect.json_path %q exists: nothing at that path in %s", r.Path, shorten(jsonText(doc))), nil
	}
	if !r.hasEquals {
		return "", nil
	}
	want, err := render(r.Equals, results)
	if err != nil {
		return "", err
	}
	if want, err = normalize(want); err != nil {
		return "", fmt.Errorf("json_path %q: equals: %w", r.Path, err)
	}
	if !found {
		return fmt.Sprintf("expect.json_path %q equals %s: nothing at that path in %s", r.Path, jsonText(want), shorten(jsonText(doc))), nil
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("expect.json_path %q equals %s: got %s", r.Path, jsonText(want), shorten(jsonText(got))), nil
	}
	return "", nil
}

// allText is every text a result carries, the text of embedded resources
// included, so contains works on resource reads as well.
func allText(res *client.ToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch {
		case c.Type == "text":
			parts = append(parts, c.Text)
		case c.Resource != nil && c.Resource.Text != "":
			parts = append(parts, c.Resource.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// resultJSON decodes the result's JSON: its structured content, else its
// first text block that is JSON.
func resultJSON(res *client.ToolResult) any {
	raw := res.JSON()
	if raw == nil {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// excerpt quotes s, shortened to what fits on a report line or two.
func excerpt(s string) string { return fmt.Sprintf("%q", shorten(s)) }

func shorten(s string) string {
	const limit = 300
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}
