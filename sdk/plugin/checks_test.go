package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

type upstream struct {
	Host string `json:"host"`
	Port int    `json:"port" default:"443"`
}

type storeConfig struct {
	Name     string    `json:"name"`
	Mode     string    `json:"mode" enum:"fast,safe" default:"safe"`
	Levels   []int     `json:"levels,omitempty" enum:"1,2,3"`
	Upstream *upstream `json:"upstream,omitempty"`
	Note     string    `json:"note,omitempty"`
}

// The gateway checks a config block against the plugin's schema only in
// `toolgate config validate`; at start-up the plugin's own decoding is all
// there is, so it must refuse what that command refuses, not hand the
// plugin zero values.
func TestConfigIsCheckedAgainstItsSchemaAtStartUp(t *testing.T) {
	var got storeConfig
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "store",
		Config: plugin.NewConfig(func(_ context.Context, c storeConfig) error { got = c; return nil })})
	tests := []struct {
		config string
		want   []protov1.FieldError
	}{
		{`{}`, []protov1.FieldError{{Path: "name", Message: "is required"}}},
		{`{"name":"n","mode":"fsat"}`, []protov1.FieldError{{Path: "mode", Message: `must be one of "fast", "safe", got "fsat"`}}},
		{`{"name":"n","levels":[1,4]}`, []protov1.FieldError{{Path: "levels.1", Message: `must be one of 1, 2, 3, got 4`}}},
		{`{"name":"n","upstream":{}}`, []protov1.FieldError{{Path: "upstream.host", Message: "is required"}}},
		{`{"mode":"x","note":3}`, []protov1.FieldError{
			{Path: "note", Message: "expected a string, got a number"},
			{Path: "name", Message: "is required"},
			{Path: "mode", Message: `must be one of "fast", "safe", got "x"`}}},
		// Every mistake at once, unknown names with the rest, nested ones at
		// their path: an operator fixes the block in one pass, not one
		// restart per mistake.
		{`{"nmae":"n","mdoe":"safe","levels":["1"],"upstream":{"hots":"h","port":"443"}}`, []protov1.FieldError{
			{Path: "mdoe", Message: `unknown setting; did you mean "mode"?`},
			{Path: "nmae", Message: `unknown setting; did you mean "name"?`},
			{Path: "levels.0", Message: "expected an integer, got a string"},
			{Path: "upstream.hots", Message: `unknown setting; did you mean "host"?`},
			{Path: "upstream.port", Message: "expected an integer, got a string"},
			{Path: "name", Message: "is required"},
			{Path: "upstream.host", Message: "is required"}}},
		{`{"name":1,"mode":2,"note":true}`, []protov1.FieldError{
			{Path: "name", Message: "expected a string, got a number"},
			{Path: "mode", Message: "expected a string, got a number"},
			{Path: "note", Message: "expected a string, got true or false"}}},
	}
	for _, tt := range tests {
		err := b.Configure(context.Background(), json.RawMessage(tt.config))
		var ce *protov1.ConfigError
		if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Fields, tt.want) {
			t.Errorf("%s: err = %v, want fields %+v", tt.config, err, tt.want)
		}
	}
	if err := b.Configure(context.Background(), json.RawMessage(`{"name":"n","levels":[3],"upstream":{"host":"h"}}`)); err != nil {
		t.Fatalf("a valid block: %v", err)
	}
	want := storeConfig{Name: "n", Mode: "safe", Levels: []int{3}, Upstream: &upstream{Host: "h", Port: 443}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("configured with %+v (upstream %+v), want %+v", got, got.Upstream, want)
	}
}

type lineItem struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty" default:"1"`
}

type orderArgs struct {
	Items []lineItem `json:"items"`
	Ship  *upstream  `json:"ship,omitempty"`
}

// The schema shows a nested field's default; the handler must see it too, in
// a list of objects or an object, as it does at the top level.
func TestNestedDefaultsReachTheHandler(t *testing.T) {
	var seen orderArgs
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "shop", Tools: []plugin.Tool{
		plugin.NewTool("order", "Order.", func(_ context.Context, _ *plugin.Call, in orderArgs) (*plugin.Result, error) {
			seen = in
			return plugin.Text("ok"), nil
		}),
	}})
	res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "order",
		Arguments: json.RawMessage(`{"items":[{"sku":"a"},{"sku":"b","qty":3}],"ship":{"host":"h"}}`)}, nil)
	if err != nil || res.IsError {
		t.Fatalf("order: %+v, %v", res, err)
	}
	want := orderArgs{Items: []lineItem{{"a", 1}, {"b", 3}}, Ship: &upstream{Host: "h", Port: 443}}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("handler saw %+v (ship %+v), want %+v (ship %+v)", seen, seen.Ship, want, want.Ship)
	}
}
