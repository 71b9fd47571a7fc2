package plugin_test

import (
	"context"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// What each option tells a client about the tool's effects; a tool with none
// is, as MCP reads it, one that may destroy data.
func TestEffectOptions(t *testing.T) {
	noop := func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) { return plugin.Text(""), nil }
	for name, tt := range map[string]struct {
		opts                  []plugin.ToolOption
		readOnly, destructive bool
	}{
		"none":        {nil, false, true},
		"read-only":   {[]plugin.ToolOption{plugin.ReadOnly()}, true, false},
		"additive":    {[]plugin.ToolOption{plugin.Additive()}, false, false},
		"destructive": {[]plugin.ToolOption{plugin.Destructive()}, false, true},
	} {
		a := plugin.NewTool("t", "T.", noop, tt.opts...).Def.Annotations
		if a.IsReadOnly() != tt.readOnly || a.IsDestructive() != tt.destructive {
			t.Errorf("%s: read-only %v destructive %v, want %v %v", name, a.IsReadOnly(), a.IsDestructive(), tt.readOnly, tt.destructive)
		}
	}
}
