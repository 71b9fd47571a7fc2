package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

type pageArgs struct {
	Query string  `json:"query"`
	Limit int     `json:"limit" default:"200"`
	Level int     `json:"level,omitempty" enum:"1,2,3"`
	Exact bool    `json:"exact,omitempty" enum:"true"`
	Scale float64 `json:"scale,omitempty"`
}

func pager(seen *pageArgs) *plugin.Plugin {
	return &plugin.Plugin{Name: "pager", Tools: []plugin.Tool{
		plugin.NewTool("page", "Page.", func(_ context.Context, _ *plugin.Call, in pageArgs) (*plugin.Result, error) {
			*seen = in
			return plugin.Text("ok"), nil
		}),
	}}
}

// Defaults land in the handler, and typed enums let valid values through the
// gateway's validator.
func TestSchemaAndBehaviourAgree(t *testing.T) {
	var seen pageArgs
	b := plugintest.ServePlugin(t, pager(&seen))
	tests := []struct {
		args string
		want pageArgs
	}{
		{`{"query":"q"}`, pageArgs{Query: "q", Limit: 200}},
		{`{"query":"q","limit":5,"level":2,"exact":true}`, pageArgs{Query: "q", Limit: 5, Level: 2, Exact: true}},
	}
	for _, tt := range tests {
		res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "page", Arguments: json.RawMessage(tt.args)}, &plugintest.Events{})
		if err != nil || res.IsError {
			t.Fatalf("%s: %+v, %v", tt.args, res, err)
		}
		if seen != tt.want {
			t.Errorf("%s: handler saw %+v, want %+v", tt.args, seen, tt.want)
		}
	}
	res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "page", Arguments: json.RawMessage(`{"query":"q","level":4}`)}, &plugintest.Events{})
	if err != nil || !res.IsError {
		t.Errorf("level 4 outside the enum: %+v, %v", res, err)
	}
}

// A handler reached without the gateway's check (another host, a direct
// call) still words a bad argument in the argument's terms, not Go's.
func TestDecodeErrorsSpeakArguments(t *testing.T) {
	var seen pageArgs
	h := pager(&seen).Tools[0].Handler
	tests := map[string]string{
		`{"query":"q","scale":"big"}`: `invalid arguments for page: argument "scale": expected a number, got a string`,
		`{"query":"q","limit":1.5}`:   `invalid arguments for page: argument "limit": expected an integer, got number 1.5`,
		`{"query":"q","limt":1}`:      `invalid arguments for page: unknown argument "limt"; did you mean "limit"?`,
		`[1]`:                         `invalid arguments for page: arguments: expected an object, got a list`,
	}
	for args, want := range tests {
		res, err := h(context.Background(), &plugin.Call{Name: "page", Arguments: json.RawMessage(args)})
		if err != nil || !res.IsError || res.Content[0].Text != want {
			t.Errorf("%s:\n got %+v, %v\nwant %q", args, res, err, want)
		}
	}
}

type connection struct {
	URL     string `json:"url"`
	Timeout string `json:"timeout" default:"5s"`
}

type serviceConfig struct {
	connection
	*Retry
	ReadOnly bool `json:"read_only,omitempty"`
}

// Retry is exported so that it can be embedded as a pointer.
type Retry struct {
	Attempts int `json:"attempts,omitempty" default:"3"`
}

// Embedded structs in a config are flattened, as in encoding/json and as for
// tool arguments, and their defaults apply.
func TestDecodeConfigEmbeddedAndDefaults(t *testing.T) {
	var cfg serviceConfig
	if err := plugin.DecodeConfig(json.RawMessage(`{"url":"http://x","read_only":true}`), &cfg); err != nil {
		t.Fatalf("DecodeConfig: %v", err)
	}
	if cfg.URL != "http://x" || cfg.Timeout != "5s" || !cfg.ReadOnly || cfg.Retry == nil || cfg.Attempts != 3 {
		t.Errorf("decoded %+v (retry %+v)", cfg, cfg.Retry)
	}
	err := plugin.DecodeConfig(json.RawMessage(`{"ulr":"http://x","atempts":2}`), &serviceConfig{})
	var ce *plugin.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want *ConfigError", err)
	}
	want := []plugin.FieldError{
		{Path: "atempts", Message: `unknown setting; did you mean "attempts"?`},
		{Path: "ulr", Message: `unknown setting; did you mean "url"?`},
	}
	if !reflect.DeepEqual(ce.Fields, want) {
		t.Errorf("fields = %+v, want %+v", ce.Fields, want)
	}
}

func TestBadTagsAreDefinitionErrors(t *testing.T) {
	for want, v := range map[string]any{
		`field N: enum value "two": not an integer of int`: struct {
			N int `json:"n" enum:"1,two"`
		}{},
		`field B: default "yes please": not true or false`: struct {
			B bool `json:"b" default:"yes please"`
		}{},
	} {
		if _, err := plugin.SchemaOf(v); err == nil || err.Error() != want {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

// duration reads "30s" or {"seconds": 30}: a type with its own UnmarshalJSON
// is judged by it, not by its Go fields.
type duration struct{ d time.Duration }

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := time.ParseDuration(s)
		d.d = v
		return err
	}
	var o struct {
		Seconds int `json:"seconds"`
	}
	err := json.Unmarshal(b, &o)
	d.d = time.Duration(o.Seconds) * time.Second
	return err
}

func TestDecodeConfigLeavesUnmarshalersTheirJSON(t *testing.T) {
	var c struct {
		Every duration `json:"every"`
	}
	for in, want := range map[string]time.Duration{`{"every":"30s"}`: 30 * time.Second, `{"every":{"seconds":5}}`: 5 * time.Second} {
		if err := plugin.DecodeConfig(json.RawMessage(in), &c); err != nil || c.Every.d != want {
			t.Errorf("%s: %v, %v; want %v", in, c.Every.d, err, want)
		}
	}
}
