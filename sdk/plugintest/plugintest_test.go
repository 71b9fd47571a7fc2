package plugintest_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

type greetArgs struct {
	Name string `json:"name"`
}

// A call the gateway would refuse never reaches the handler in a test either.
func TestArgumentsAreCheckedAgainstTheSchema(t *testing.T) {
	reached := false
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "hello", Tools: []plugin.Tool{
		plugin.NewTool("greet", "Greet.", func(_ context.Context, _ *plugin.Call, in greetArgs) (*plugin.Result, error) {
			reached = true
			return plugin.Text("Hello, " + in.Name), nil
		}),
	}})
	tests := []struct{ args, want string }{
		{`{}`, `invalid arguments for greet: at /: missing property 'name'`},
		{`{"name":"Ada","nmae":1}`, `invalid arguments for greet: at /nmae: unknown argument; did you mean "name"?`},
		{`{"name":3}`, `invalid arguments for greet: at /name: got number, want string`},
	}
	for _, tt := range tests {
		res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "greet", Arguments: json.RawMessage(tt.args)}, &plugintest.Events{})
		if err != nil {
			t.Fatalf("%s: %v", tt.args, err)
		}
		if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != tt.want {
			t.Errorf("%s: got %+v, want an error result %q", tt.args, res, tt.want)
		}
	}
	if reached {
		t.Error("the handler ran with arguments the schema refuses")
	}
	res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)}, &plugintest.Events{})
	if err != nil || res.IsError || res.Content[0].Text != "Hello, Ada" {
		t.Errorf("valid call: %+v, %v", res, err)
	}
}
