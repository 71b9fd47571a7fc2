package main

import (
	"fmt"
	"testing"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/core/native"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// The completions capability is fixed when the gateway starts, so it is
// declared when a plugin completes by its stored manifest, or may once
// learned.
func TestNativeCompletionsDeclaredWhenSomePluginMayComplete(t *testing.T) {
	lib := native.New(catalog.New(), supervisor.NewManager(nil, supervisor.ManagerOptions{}), nil, nil)
	parse := func(t *testing.T, src string) (*config.Config, []supervisor.Spec) {
		t.Helper()
		cfg, err := config.Parse([]byte(src), "t.hcl")
		if err != nil {
			t.Fatal(err)
		}
		return cfg, specs(cfg, findLauncher("/bin/toolgate"))
	}
	state := t.TempDir()
	base := "gateway {\n  state_dir = \"" + state + "\"\n%s}\n"
	prom := "plugin \"prom\" {\n  type = \"prometheus\"\n  config {\n    url = \"http://127.0.0.1:9090\"\n  }\n}\n"
	stdio := "plugin \"ev\" {\n  type = \"mcp-stdio\"\n  config {\n    command = \"/bin/true\"\n  }\n}\n"
	hcl := func(gateway, plugins string) string { return fmt.Sprintf(base, gateway) + plugins }

	if cfg, sp := parse(t, hcl("", prom)); nativeCompletions(cfg, sp, lib) != nil {
		t.Error("declared with only a plugin kind that never completes")
	}
	cfg, sp := parse(t, hcl("", prom+stdio))
	if nativeCompletions(cfg, sp, lib) == nil {
		t.Error("not declared with an MCP server not learned yet")
	}
	store := catalog.ManifestStore{Dir: state}
	for _, s := range sp {
		if s.Name == "ev" {
			if err := store.Save(supervisor.ManifestKey(s), &catalog.Manifest{Info: protov1.Info{ProtocolMinor: 2}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if nativeCompletions(cfg, sp, lib) != nil {
		t.Error("declared though the MCP server's stored manifest says it does not complete")
	}
	for _, s := range sp {
		if s.Name == "ev" {
			m := &catalog.Manifest{Info: protov1.Info{ProtocolMinor: 2, Capabilities: protov1.Capabilities{Completions: true}}}
			if err := store.Save(supervisor.ManifestKey(s), m); err != nil {
				t.Fatal(err)
			}
		}
	}
	if nativeCompletions(cfg, sp, lib) == nil {
		t.Error("not declared though the stored manifest says the server completes")
	}
	cfg, sp = parse(t, hcl("  native_prompts = false\n  native_resources = false\n", prom+stdio))
	if nativeCompletions(cfg, sp, lib) != nil || nativePrompts(cfg, lib) != nil || nativeResources(cfg, lib) != nil {
		t.Error("served natively though the config turned it off")
	}
}
