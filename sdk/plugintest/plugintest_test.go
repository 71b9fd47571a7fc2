package plugintest_test

import (
	"context"
	"encoding/json"
	"fmt"
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

type limits struct {
	Max  int    `json:"max" default:"3"`
	Name string `json:"name,omitempty"`
}

func counter(seen *limits) *plugin.Plugin {
	return &plugin.Plugin{Name: "counter",
		Config: plugin.NewConfig(func(_ context.Context, c limits) error { *seen = c; return nil })}
}

// A plugin is configured before any call, as the gateway configures it:
// defaults applied when the block is left out.
func TestServeConfigured(t *testing.T) {
	var seen limits
	plugintest.ServeConfigured(t, counter(&seen), "")
	if seen != (limits{Max: 3}) {
		t.Errorf("configured without a block: %+v, want the defaults", seen)
	}
	plugintest.ServeConfigured(t, counter(&seen), `{"max":5,"name":"n"}`)
	if seen != (limits{Max: 5, Name: "n"}) {
		t.Errorf("configured with a block: %+v", seen)
	}
}

// A refused block fails the test with each setting at fault.
func TestServeConfiguredReportsRefusedSettings(t *testing.T) {
	var seen limits
	rec := &recorder{TB: t}
	func() {
		defer func() { _ = recover() }() // Fatalf ends the helper's goroutine path here
		plugintest.ServeConfigured(rec, counter(&seen), `{"mx":5}`)
	}()
	want := "plugin \"counter\" refused the config block {\"mx\":5}:\n\tconfig.mx: unknown setting; did you mean \"max\"?"
	if !rec.failed || rec.fatal != want {
		t.Errorf("failed=%v with %q, want %q", rec.failed, rec.fatal, want)
	}
}

// recorder keeps what a helper reports instead of failing this test.
type recorder struct {
	testing.TB
	fatal  string
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.fatal = true, fmt.Sprintf(format, args...)
	panic("fatal")
}
