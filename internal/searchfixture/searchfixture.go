// Package searchfixture keeps the search quality set's copy of a built-in
// plugin's tools (core/search/testdata/tools/<plugin>.json) equal to the
// plugin's own definitions, so ranking is measured on the tools users get.
package searchfixture

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/toolgate/toolgate/sdk/protov1"
)

var update = flag.Bool("update-search-fixture", false,
	"rewrite the plugin's tools in core/search/testdata/tools from its definitions")

// Check fails t when the stored tools of plugin differ from tools; with
// -update-search-fixture it rewrites them first.
func Check(t testing.TB, plugin string, tools []protov1.Tool) {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "..", "core", "search", "testdata", "tools", plugin+".json")
	want, err := render(tools)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run this test with -update-search-fixture", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date; run this test with -update-search-fixture", path)
	}
}

// render writes tools the way MCP tools/list shows them.
func render(tools []protov1.Tool) ([]byte, error) {
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
	for i, d := range tools {
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
