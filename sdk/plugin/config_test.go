package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

type promConfig struct {
	URL     string `json:"url" description:"Where Prometheus answers."`
	Timeout int    `json:"timeout" default:"30"`
}

// A plugin describes its config block across the wire, so the gateway can
// check settings before it configures anything.
func TestPluginDescribesItsConfig(t *testing.T) {
	var got promConfig
	withConfig := &plugin.Plugin{Name: "prom", Config: plugin.NewConfig(func(_ context.Context, c promConfig) error {
		got = c
		return nil
	})}
	raw := &plugin.Plugin{Name: "raw", Configure: func(context.Context, json.RawMessage) error { return nil }}
	for _, tt := range []struct {
		p    *plugin.Plugin
		want string
	}{
		{withConfig, `{"additionalProperties":false,"properties":{"timeout":{"default":30,"type":"integer"},"url":{"description":"Where Prometheus answers.","type":"string"}},"required":["url"],"type":"object"}`},
		{&plugin.Plugin{Name: "bare"}, `{"type":"object","properties":{},"additionalProperties":false}`},
		{raw, ``},
	} {
		info, err := plugintest.ServePlugin(t, tt.p).GetInfo(context.Background())
		if err != nil || string(info.ConfigSchema) != tt.want || info.ProtocolMinor != protov1.ProtocolMinor {
			t.Errorf("%s: GetInfo = %s (minor %d), %v; want schema %s", tt.p.Name, info.ConfigSchema, info.ProtocolMinor, err, tt.want)
		}
	}

	b := plugintest.ServePlugin(t, withConfig)
	if err := b.Configure(context.Background(), json.RawMessage(`{"url":"http://x"}`)); err != nil || got != (promConfig{URL: "http://x", Timeout: 30}) {
		t.Errorf("Configure: %v, config %+v", err, got)
	}
	var ce *protov1.ConfigError
	if err := b.Configure(context.Background(), json.RawMessage(`{"url":"http://x","timout":3}`)); !errors.As(err, &ce) || ce.Fields[0].Path != "timout" {
		t.Errorf("unknown setting: %v", err)
	}
	if _, err := (&plugin.Plugin{Name: "both", Config: withConfig.Config, Configure: raw.Configure}).Backend(); err == nil {
		t.Error("Config and Configure both set: no error")
	}
}
