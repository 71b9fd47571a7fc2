package plugin_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// A tool the gateway could only publish bent (a name outside MCP's
// characters) stops the plugin at start, with the tool and the fix named,
// rather than surfacing as a hashed name.
func TestToolDefinitionsTheGatewayWouldRefuse(t *testing.T) {
	noop := func(context.Context, *plugin.Call) (*plugin.Result, error) { return plugin.Text(""), nil }
	raw := func(name, in, out string) plugin.Tool {
		def := protov1.Tool{Name: name, InputSchema: json.RawMessage(in)}
		if out != "" {
			def.OutputSchema = json.RawMessage(out)
		}
		return plugin.NewRawTool(def, noop)
	}
	for _, tt := range []struct {
		tool plugin.Tool
		want []string
	}{
		{raw("get weather", `{"type":"object"}`, ""), []string{`tool "get weather"`, `name has ' '`, "letters, digits, _ and -"}},
		{raw("notes.add", `{"type":"object"}`, ""), []string{`tool "notes.add"`, `name has '.'`}},
		{raw(strings.Repeat("a", 65), `{"type":"object"}`, ""), []string{"65 characters", "at most 64"}},
	} {
		_, err := (&plugin.Plugin{Name: "p", Tools: []plugin.Tool{tt.tool}}).Backend()
		if err == nil {
			t.Errorf("tool %q: plugin started", tt.tool.Def.Name)
			continue
		}
		for _, w := range append(tt.want, `plugin "p"`) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("tool %q: error %q does not say %q", tt.tool.Def.Name, err, w)
			}
		}
	}
	ok := raw("get_weather-2", `{"type":"object"}`, "")
	if _, err := (&plugin.Plugin{Name: "p", Tools: []plugin.Tool{ok}}).Backend(); err != nil {
		t.Errorf("a valid raw tool was refused: %v", err)
	}
}

// A struct tag wrong for its field stops the plugin when the tool is
// defined; the message names the tool, the field and the tag.
func TestNewToolNamesTheToolOfABadTag(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		for _, w := range []string{`tool "pick"`, "field N", `enum value "a"`} {
			if !strings.Contains(msg, w) {
				t.Errorf("panic %q does not say %q", msg, w)
			}
		}
	}()
	plugin.NewTool("pick", "", func(context.Context, *plugin.Call, struct {
		N int `json:"n" enum:"a,b"`
	}) (*plugin.Result, error) {
		return plugin.Text(""), nil
	})
}
