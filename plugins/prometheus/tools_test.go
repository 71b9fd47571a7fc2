package prometheus

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/internal/searchfixture"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestToolDefinitions(t *testing.T) {
	p, _ := newPlugin()
	b := plugintest.ServePlugin(t, p)
	tools, err := b.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 16 {
		t.Fatalf("%d tools, want 16", len(tools))
	}
	for _, tool := range tools {
		if !tool.Annotations.IsReadOnly() || tool.Annotations.IsDestructive() || tool.Labels["category"] != "observability" {
			t.Errorf("%s: annotations %+v labels %v", tool.Name, tool.Annotations, tool.Labels)
		}
		if len(tool.Description) < 80 || tool.Title == "" {
			t.Errorf("%s: description %q is too thin to be found", tool.Name, tool.Description)
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: input schema %s: %v", tool.Name, tool.InputSchema, err)
		}
		for name, prop := range schema.Properties {
			if !bytes.Contains(prop, []byte(`"description"`)) {
				t.Errorf("%s.%s has no description", tool.Name, name)
			}
		}
	}
}

// TestSearchFixture keeps the search quality set's copy of these tools, under
// the plugin name "prom" the example config uses, equal to the definitions.
func TestSearchFixture(t *testing.T) {
	p, _ := newPlugin()
	defs := make([]protov1.Tool, len(p.Tools))
	for i, tl := range p.Tools {
		defs[i] = tl.Def
	}
	searchfixture.Check(t, "prom", defs)
}
