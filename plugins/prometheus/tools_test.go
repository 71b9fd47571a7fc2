package prometheus

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
)

var updateSearchFixture = flag.Bool("update-search-fixture", false,
	"rewrite core/search/testdata/tools/prom.json from the tool definitions")

// searchFixture is where the search quality set keeps this plugin's tools,
// under the plugin name "prom" the example config uses.
var searchFixture = filepath.Join("..", "..", "core", "search", "testdata", "tools", "prom.json")

func TestToolDefinitions(t *testing.T) {
	p, _ := newPlugin()
	b := plugintest.ServePlugin(t, p)
	tools, err := b.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != 11 {
		t.Fatalf("%d tools, want 11", len(tools))
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

// TestSearchFixture keeps the search quality set's copy of these tools equal
// to the definitions; run with -update-search-fixture after changing them.
func TestSearchFixture(t *testing.T) {
	p, _ := newPlugin()
	want, err := searchFixtureJSON(p.Tools)
	if err != nil {
		t.Fatal(err)
	}
	if *updateSearchFixture {
		if err := os.WriteFile(searchFixture, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(searchFixture)
	if err != nil {
		t.Fatalf("%v; run go test ./plugins/prometheus -run TestSearchFixture -update-search-fixture", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date; run go test ./plugins/prometheus -run TestSearchFixture -update-search-fixture", searchFixture)
	}
}

// searchFixtureJSON renders tools the way MCP tools/list shows them.
func searchFixtureJSON(tools []plugin.Tool) ([]byte, error) {
	type annotations struct {
		ReadOnly   bool `json:"readOnlyHint"`
		Idempotent bool `json:"idempotentHint"`
	}
	type mcpTool struct {
		Name        string            `json:"name"`
		Title       string            `json:"title"`
		Description string            `json:"description"`
		InputSchema json.RawMessage   `json:"inputSchema"`
		Annotations annotations       `json:"annotations"`
		Labels      map[string]string `json:"labels"`
	}
	out := make([]mcpTool, len(tools))
	for i, tl := range tools {
		d := tl.Def
		out[i] = mcpTool{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema,
			Annotations: annotations{ReadOnly: d.Annotations.IsReadOnly(), Idempotent: d.Annotations.IsIdempotent()}, Labels: d.Labels}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
