package plugin_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// echoVars reads a template's resource as the variables it matched.
func echoVars(_ context.Context, _ string, vars map[string]string) ([]plugin.ResourceContents, error) {
	return []plugin.ResourceContents{{Text: fmt.Sprint(vars)}}, nil
}

func TestResourceTemplatesAreListedAndRead(t *testing.T) {
	b := plugintest.ServePlugin(t, &plugin.Plugin{
		Name: "notes",
		Resources: []plugin.Resource{{
			Def: plugin.ResourceDef("notes://note/index", "index", "", "text/plain"),
			Read: func(context.Context, string) ([]plugin.ResourceContents, error) {
				return []plugin.ResourceContents{{Text: "the index"}}, nil
			},
		}},
		ResourceTemplates: []plugin.ResourceTemplate{
			{Def: plugin.ResourceTemplateDef("notes://note/{id}", "note", "One note.", "text/markdown"), Read: echoVars},
			{Def: plugin.ResourceTemplateDef("notes://tag/{tag}/{+path}", "tagged", "", ""), Read: echoVars},
			{Def: plugin.ResourceTemplateDef("notes://search{?q}", "search", "", ""), Read: echoVars},
		},
	})
	ctx := context.Background()
	ts, err := b.ListResourceTemplates(ctx)
	if err != nil || len(ts) != 3 || ts[0].URITemplate != "notes://note/{id}" || ts[0].MIMEType != "text/markdown" {
		t.Fatalf("ListResourceTemplates = %+v, %v", ts, err)
	}
	if info, _ := b.GetInfo(ctx); !info.Capabilities.Resources {
		t.Error("a plugin with only templates does not declare resources")
	}
	for uri, want := range map[string]string{
		"notes://note/index":        "the index", // the fixed resource wins
		"notes://note/42":           "map[id:42]",
		"notes://note/":             "map[id:]", // RFC 6570: an empty value; Read decides
		"notes://note/a%20b":        "map[id:a b]",
		"notes://tag/work/2026/q1":  "map[path:2026/q1 tag:work]",
		"notes://tag/wo%2Frk/x%20y": "map[path:x y tag:wo/rk]",
		"notes://search?q=a%20b":    "map[q:a b]",
		"notes://note/a,b":          "map[id:a,b]", // RFC 6570's list, joined as written
		"notes://tag/x/y,z%20w":     "map[path:y,z w tag:x]",
	} {
		cs, err := b.ReadResource(ctx, uri)
		if err != nil || len(cs) != 1 || cs[0].Text != want {
			t.Errorf("ReadResource(%s) = %+v, %v; want %q", uri, cs, err, want)
			continue
		}
		if cs[0].URI != uri {
			t.Errorf("ReadResource(%s): contents URI %q, want the URI read", uri, cs[0].URI)
		}
	}
	if cs, _ := b.ReadResource(ctx, "notes://note/7"); len(cs) == 1 && cs[0].MIMEType != "text/markdown" {
		t.Errorf("contents MIME type %q, want the template's text/markdown", cs[0].MIMEType)
	}
	for _, uri := range []string{"notes://note/1/2", "notes://tag/work", "other://note/1"} {
		if _, err := b.ReadResource(ctx, uri); !errors.Is(err, protov1.ErrNotFound) {
			t.Errorf("ReadResource(%s) err = %v, want not found", uri, err)
		}
	}
}

func TestResourceTemplateDefinitionErrors(t *testing.T) {
	for tmpl, want := range map[string]string{
		"notes://note":     "has no {variable}",
		"notes://note/{id": "URI template",
		"notes://{a b}":    "URI template",
	} {
		_, err := (&plugin.Plugin{Name: "n", ResourceTemplates: []plugin.ResourceTemplate{
			{Def: plugin.ResourceTemplateDef(tmpl, "t", "", ""), Read: echoVars}}}).Backend()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tmpl) {
			t.Errorf("%s: err = %v, want one naming the template and %q", tmpl, err, want)
		}
	}
	_, err := (&plugin.Plugin{Name: "n", ResourceTemplates: []plugin.ResourceTemplate{
		{Def: plugin.ResourceTemplateDef("n://{x}", "t", "", "")}}}).Backend()
	if err == nil || !strings.Contains(err.Error(), "needs a Read function") {
		t.Errorf("template without Read: err = %v", err)
	}
}

// Completion is asked for a template the plugin lists, as for a prompt it
// lists; another is not found rather than handed to Complete.
func TestCompleteKnowsTheTemplates(t *testing.T) {
	var asked []string
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "notes",
		ResourceTemplates: []plugin.ResourceTemplate{
			{Def: plugin.ResourceTemplateDef("notes://note/{id}", "note", "", ""), Read: echoVars}},
		Complete: func(_ context.Context, req *plugin.CompleteRequest) (*plugin.Completion, error) {
			asked = append(asked, req.ResourceTemplate+" "+req.Argument)
			return &plugin.Completion{Values: []string{"1", "2"}}, nil
		},
	})
	c := b.(protov1.Completer)
	got, err := c.Complete(context.Background(), &protov1.CompleteRequest{ResourceTemplate: "notes://note/{id}", Argument: "id"})
	if err != nil || len(got.Values) != 2 {
		t.Fatalf("Complete = %+v, %v", got, err)
	}
	if _, err := c.Complete(context.Background(), &protov1.CompleteRequest{ResourceTemplate: "notes://tag/{t}", Argument: "t"}); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("unknown template: err = %v, want not found", err)
	}
	if len(asked) != 1 || asked[0] != "notes://note/{id} id" {
		t.Errorf("Complete was asked %q", asked)
	}
}
