package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// ErrNoSuchField marks a field path the kind's schema does not have.
var ErrNoSuchField = errors.New("no such field")

type explainArgs struct {
	contextArg
	Kind       string `json:"kind" description:"Resource kind: plural, singular, Kind or short name (pods, Deployment, deploy), optionally with its group (widgets.example.com)."`
	APIVersion string `json:"api_version,omitempty" description:"Group/version to explain instead of the server's preferred one, e.g. apps/v1."`
	Field      string `json:"field,omitempty" description:"Dotted path of a field to explain, e.g. spec.template.spec.containers.resources. Default: the kind itself."`
}

// schemaNode is the part of an OpenAPI v3 schema explain reads.
type schemaNode struct {
	Type        string                `json:"type"`
	Format      string                `json:"format"`
	Description string                `json:"description"`
	Properties  map[string]schemaNode `json:"properties"`
	Required    []string              `json:"required"`
	Items       *schemaNode           `json:"items"`
	Ref         string                `json:"$ref"`
	AllOf       []schemaNode          `json:"allOf"`
	Additional  *schemaNode           `json:"additionalProperties"`
	GVK         []struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	} `json:"x-kubernetes-group-version-kind"`
}

type openAPIDoc struct {
	Components struct {
		Schemas map[string]schemaNode `json:"schemas"`
	} `json:"components"`
}

// resolve follows $ref, directly or through a one-element allOf, which is
// how the server writes a field of a named type; the field's own
// description wins over the type's.
func (d *openAPIDoc) resolve(n schemaNode) schemaNode {
	for range 10 {
		ref := n.Ref
		if ref == "" && len(n.AllOf) == 1 {
			ref = n.AllOf[0].Ref
		}
		if ref == "" {
			return n
		}
		target := d.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		if n.Description != "" {
			target.Description = n.Description
		}
		n = target
	}
	return n
}

// typeName renders a schema's type as kubectl explain does: <string>,
// <[]Container>, <map[string]string>, <Object>.
func (d *openAPIDoc) typeName(n schemaNode) string {
	ref := n.Ref
	if ref == "" && len(n.AllOf) == 1 {
		ref = n.AllOf[0].Ref
	}
	if ref != "" {
		name := ref[strings.LastIndex(ref, ".")+1:]
		if r := d.resolve(n); r.Type != "" && r.Type != "object" {
			return r.Type
		}
		return name
	}
	switch {
	case n.Type == "array" && n.Items != nil:
		return "[]" + d.typeName(*n.Items)
	case n.Type == "object" && n.Additional != nil:
		return "map[string]" + d.typeName(*n.Additional)
	case n.Type == "object" || n.Type == "":
		return "Object"
	}
	return n.Type
}

func (k *kube) explain(ctx context.Context, in explainArgs) (*plugin.Result, error) {
	r, err := k.c.resolve(ctx, in.Kind, in.APIVersion)
	if err != nil {
		return k.c.fail(target{verb: "explain", resource: in.Kind}, err), nil
	}
	t := target{verb: "explain", resource: r.GroupResource()}
	// A schema belongs to no namespace: allowed_namespaces has nothing to
	// say here, denied_kinds does.
	if err := k.s.limits.checkKind(t.verb, r); err != nil {
		return plugin.Errorf("%v", err), nil
	}
	doc, err := k.c.openAPI(ctx, r)
	if err != nil {
		return k.c.fail(t, err), nil
	}
	var node schemaNode
	found := false
	for _, s := range doc.Components.Schemas {
		for _, g := range s.GVK {
			if g.Group == r.GVR.Group && g.Version == r.GVR.Version && g.Kind == r.Kind {
				node, found = s, true
			}
		}
	}
	if !found {
		return plugin.Errorf("explain: the server publishes no schema for %s %s", r.APIVersion(), r.Kind), nil
	}
	path := strings.Split(strings.Trim(in.Field, "."), ".")
	if in.Field == "" {
		path = nil
	}
	walked := []string{}
	for _, name := range path {
		node = doc.resolve(node)
		if node.Type == "array" && node.Items != nil {
			node = doc.resolve(*node.Items)
		}
		child, ok := node.Properties[name]
		if !ok {
			return plugin.Errorf("explain: %s %s has no field %q under %q (%v); its fields there are: %s",
				r.APIVersion(), r.Kind, name, firstNonEmpty(strings.Join(walked, "."), "the top level"), ErrNoSuchField,
				strings.Join(sortedProps(node), ", ")), nil
		}
		walked = append(walked, name)
		node = child
	}
	typ := doc.typeName(node)
	node = doc.resolve(node)
	if node.Type == "array" && node.Items != nil {
		node = doc.resolve(*node.Items)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "KIND:     %s\nVERSION:  %s\n", r.Kind, r.APIVersion())
	if len(walked) > 0 {
		fmt.Fprintf(&b, "FIELD:    %s <%s>\n", strings.Join(walked, "."), typ)
	}
	fmt.Fprintf(&b, "\nDESCRIPTION:\n  %s\n", strings.ReplaceAll(firstNonEmpty(node.Description, "<empty>"), "\n", "\n  "))
	fields := []map[string]any{}
	if len(node.Properties) > 0 {
		b.WriteString("\nFIELDS:\n")
		for _, name := range sortedProps(node) {
			p := node.Properties[name]
			req := slices.Contains(node.Required, name)
			line := fmt.Sprintf("  %s <%s>", name, doc.typeName(p))
			if req {
				line += " -required-"
			}
			desc := doc.resolve(p).Description
			if i := strings.IndexAny(desc, ".\n"); i > 0 {
				desc = desc[:i+1]
			}
			b.WriteString(line + "\n    " + desc + "\n")
			fields = append(fields, map[string]any{"name": name, "type": doc.typeName(p), "required": req, "description": desc})
		}
	}
	return plugin.JSON(map[string]any{"kind": r.Kind, "apiVersion": r.APIVersion(), "field": strings.Join(walked, "."),
		"type": typ, "description": node.Description, "fields": fields}, strings.TrimRight(b.String(), "\n"))
}

func sortedProps(n schemaNode) []string {
	names := make([]string, 0, len(n.Properties))
	for name := range n.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// openAPI fetches the server's OpenAPI v3 document of r's group/version.
func (c *cluster) openAPI(ctx context.Context, r resource) (*openAPIDoc, error) {
	key := "apis/" + r.APIVersion()
	if r.GVR.Group == "" {
		key = "api/" + r.GVR.Version
	}
	raw, ok, err := c.discovery.openAPISchema(ctx, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("the server publishes no OpenAPI v3 document for %s: %w", r.APIVersion(), ErrUnknownKind)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var doc openAPIDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decode OpenAPI document of %s: %w", r.APIVersion(), err)
	}
	return &doc, nil
}
