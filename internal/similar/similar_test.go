package similar

import "testing"

func TestClosest(t *testing.T) {
	options := []string{"mcp-stdio", "prometheus", "kubernetes"}
	tests := map[string]string{
		"mcp-stdoi":  "mcp-stdio",
		"mcpstdio":   "mcp-stdio",
		"kubernetis": "kubernetes",
		"k8s":        "",
		"docker":     "",
		"":           "",
	}
	for given, want := range tests {
		if got := Closest(given, options); got != want {
			t.Errorf("Closest(%q) = %q, want %q", given, got, want)
		}
	}
}
