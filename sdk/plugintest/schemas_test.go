package plugintest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// A hand-written schema the gateway could never call the tool with fails
// the author's test in ServePlugin, naming the tool and the place in the
// schema; a valid one passes.
func TestSchemasTheGatewayWouldRefuse(t *testing.T) {
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
		{raw("typo", `{"type":"objekt"}`, ""), []string{`tool "typo": input schema`, "/type"}},
		{raw("bad_min", `{"type":"object","properties":{"n":{"type":"integer","minimum":"x"}}}`, ""), []string{`tool "bad_min": input schema`, "/properties/n/minimum"}},
		{raw("remote", `{"type":"object","properties":{"n":{"$ref":"https://example.com/n.json"}}}`, ""), []string{`tool "remote": input schema`}},
		{raw("output", `{"type":"object"}`, `{"type":"objekt"}`), []string{`tool "output": output schema`}},
		{raw("broken", `{`, ""), []string{`tool "broken": input schema`}},
	} {
		err := checkSchemas(&plugin.Plugin{Name: "p", Tools: []plugin.Tool{tt.tool}})
		if err == nil {
			t.Errorf("tool %q: schemas passed", tt.tool.Def.Name)
			continue
		}
		for _, w := range append(tt.want, `plugin "p"`) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("tool %q: error %q does not say %q", tt.tool.Def.Name, err, w)
			}
		}
	}
	ok := raw("get_weather", `{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`, `{"type":"object"}`)
	if err := checkSchemas(&plugin.Plugin{Name: "p", Tools: []plugin.Tool{ok}}); err != nil {
		t.Errorf("a valid raw tool was refused: %v", err)
	}
}
