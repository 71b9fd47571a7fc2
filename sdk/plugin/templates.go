package plugin

import (
	"context"
	"fmt"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// ResourceTemplate is a family of resources named by an RFC 6570 URI
// template, such as "notes://note/{id}", and how to read one of them. Read
// gets the URI asked for and the template's variables taken from it,
// percent-decoded: a `{name}` variable matches unreserved characters and
// percent-escapes (one path segment), a `{+name}` one reserved characters
// too ("/" included), and the other operators ({?q}, {/p}, ...) as RFC 6570
// expands them. A variable that takes several values, as RFC 6570 writes a
// list ("notes://note/a,b" for {id}), arrives as those values joined by
// commas: "a,b".
type ResourceTemplate struct {
	Def  protov1.ResourceTemplate
	Read func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error)
}

// ResourceTemplateDef describes a resource template.
func ResourceTemplateDef(uriTemplate, name, description, mimeType string) protov1.ResourceTemplate {
	return protov1.ResourceTemplate{URITemplate: uriTemplate, Name: name, Description: description, MIMEType: mimeType}
}

// compileTemplate parses an RFC 6570 URI template with the library the
// gateway's MCP layer matches templates with, so a URI it routes here is
// read the same way here.
func compileTemplate(tmpl string) (*uritemplate.Template, error) {
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return nil, fmt.Errorf("URI template %q: %w", tmpl, err)
	}
	if len(t.Varnames()) == 0 {
		return nil, fmt.Errorf("URI template %q has no {variable}; list a fixed URI in Resources instead", tmpl)
	}
	return t, nil
}

// matchTemplate returns t's variables in uri, decoded, or false when uri is
// not one of its resources.
func matchTemplate(t *uritemplate.Template, uri string) (map[string]string, bool) {
	values := t.Match(uri)
	if values == nil {
		return nil, false
	}
	vars := make(map[string]string, len(values))
	for _, name := range t.Varnames() {
		// A list's values are decoded one by one; joined, they read as the
		// URI wrote them, where String() would give "".
		vars[name] = strings.Join(values.Get(name).V, ",")
	}
	return vars, true
}
