package kubernetes

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
)

var updateSearchFixture = flag.Bool("update-search-fixture", false,
	"rewrite core/search/testdata/tools/k8s.json from the tool definitions")

// searchFixture is where the search quality set keeps this plugin's tools,
// under the plugin name "k8s" the example config uses.
var searchFixture = filepath.Join("..", "..", "core", "search", "testdata", "tools", "k8s.json")

// TestSearchFixture keeps the search quality set's copy of the tools (all of
// them: read_only = false, allow_destructive = true) equal to the
// definitions; run with -update-search-fixture after changing them.
func TestSearchFixture(t *testing.T) {
	want, err := searchFixtureJSON(toolsFor(&kube{s: settings{readOnly: false, allowDestructive: true}}))
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
		t.Fatalf("%v; run go test ./plugins/kubernetes -run TestSearchFixture -update-search-fixture", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date; run go test ./plugins/kubernetes -run TestSearchFixture -update-search-fixture", searchFixture)
	}
}

// searchFixtureJSON renders tools the way MCP tools/list shows them.
func searchFixtureJSON(tools []plugin.Tool) ([]byte, error) {
	type annotations struct {
		ReadOnly    bool `json:"readOnlyHint"`
		Destructive bool `json:"destructiveHint"`
		Idempotent  bool `json:"idempotentHint"`
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
			Annotations: annotations{ReadOnly: d.Annotations.IsReadOnly(), Destructive: d.Annotations.IsDestructive(),
				Idempotent: d.Annotations.IsIdempotent()}, Labels: d.Labels}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
