package similar

import (
	"strings"
	"testing"
)

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

// The length rule that spares a huge name its edit distances keeps the
// answers: a name of megabytes is no typo, one two letters longer still is.
func TestClosestLengthRule(t *testing.T) {
	huge := strings.Repeat("mcp-stdio", 1<<17)
	if got := Closest(huge, []string{"mcp-stdio", "prometheus"}); got != "" {
		t.Errorf("Closest(1 MB name) = %q, want none", got)
	}
	if got := Closest("mcp-stdoi-x", []string{"mcp-stdio"}); got != "mcp-stdio" {
		t.Errorf("a typo two letters longer: %q", got)
	}
}
