package kubernetes

import (
	"testing"

	"github.com/toolgate/toolgate/internal/searchfixture"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// TestSearchFixture keeps the search quality set's copy of the tools (all of
// them: read_only = false, allow_destructive = true), under the plugin name
// "k8s" the example config uses, equal to the definitions.
func TestSearchFixture(t *testing.T) {
	tools := toolsFor(&kube{s: settings{readOnly: false, allowDestructive: true}})
	defs := make([]protov1.Tool, len(tools))
	for i, tl := range tools {
		defs[i] = tl.Def
	}
	searchfixture.Check(t, "k8s", defs)
}
