package plugin

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// ResourceTemplate is a family of resources named by an RFC 6570 URI
// template, such as "notes://note/{id}", and how to read one of them. Read
// gets the URI asked for and the template's variables taken from it: a
// `{name}` variable matches one path segment (no "/", "?" or "#") and is
// percent-decoded; a `{+name}` variable matches the rest, slashes included,
// as it stands.
type ResourceTemplate struct {
	Def  protov1.ResourceTemplate
	Read func(ctx context.Context, uri string, vars map[string]string) ([]ResourceContents, error)
}

// ResourceTemplateDef describes a resource template.
func ResourceTemplateDef(uriTemplate, name, description, mimeType string) protov1.ResourceTemplate {
	return protov1.ResourceTemplate{URITemplate: uriTemplate, Name: name, Description: description, MIMEType: mimeType}
}

// uriMatcher matches URIs against one template.
type uriMatcher struct {
	re      *regexp.Regexp
	names   []string
	decoded []bool // a {name} value is percent-decoded, a {+name} one is not
}

var templateExpr = regexp.MustCompile(`\{([^{}]*)\}`)

// compileTemplate reads the expressions a plugin can match without
// guessing: simple `{name}` and reserved `{+name}`. The other RFC 6570
// operators ({?q}, {/p}, {#f}, lists) are refused at start-up rather than
// matched wrongly at run time.
func compileTemplate(tmpl string) (*uriMatcher, error) {
	m := &uriMatcher{}
	var re strings.Builder
	re.WriteString("^")
	last := 0
	literal := func(s string) error {
		if strings.ContainsAny(s, "{}") {
			return fmt.Errorf("URI template %q: unbalanced braces", tmpl)
		}
		re.WriteString(regexp.QuoteMeta(s))
		return nil
	}
	for _, loc := range templateExpr.FindAllStringSubmatchIndex(tmpl, -1) {
		if err := literal(tmpl[last:loc[0]]); err != nil {
			return nil, err
		}
		last = loc[1]
		expr := tmpl[loc[2]:loc[3]]
		reserved := strings.HasPrefix(expr, "+")
		name := strings.TrimPrefix(expr, "+")
		if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != "" {
			return nil, fmt.Errorf("URI template %q: expression {%s}: only {name} and {+name} are matched", tmpl, expr)
		}
		for _, n := range m.names {
			if n == name {
				return nil, fmt.Errorf("URI template %q: variable %q appears twice", tmpl, name)
			}
		}
		m.names = append(m.names, name)
		m.decoded = append(m.decoded, !reserved)
		if reserved {
			re.WriteString("(.+)")
		} else {
			re.WriteString("([^/?#]+)")
		}
	}
	if err := literal(tmpl[last:]); err != nil {
		return nil, err
	}
	re.WriteString("$")
	if len(m.names) == 0 {
		return nil, fmt.Errorf("URI template %q has no {variable}; list a fixed URI in Resources instead", tmpl)
	}
	var err error
	if m.re, err = regexp.Compile(re.String()); err != nil {
		return nil, fmt.Errorf("URI template %q: %w", tmpl, err)
	}
	return m, nil
}

// match returns the template's variables in uri, or false when uri is not
// one of its resources.
func (m *uriMatcher) match(uri string) (map[string]string, bool) {
	sub := m.re.FindStringSubmatch(uri)
	if sub == nil {
		return nil, false
	}
	vars := make(map[string]string, len(m.names))
	for i, name := range m.names {
		v := sub[i+1]
		if m.decoded[i] {
			d, err := url.PathUnescape(v)
			if err != nil {
				return nil, false
			}
			v = d
		}
		vars[name] = v
	}
	return vars, true
}
