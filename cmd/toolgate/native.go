package main

import (
	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/core/gateway"
	"github.com/toolgate/toolgate/core/native"
	"github.com/toolgate/toolgate/core/supervisor"
)

// nativePrompts serves the plugins' prompts as MCP prompts unless the
// config turns that off (gateway { native_prompts = false }).
func nativePrompts(cfg *config.Config, lib *native.Library) gateway.PromptSource {
	if !cfg.Gateway.NativePrompts {
		return nil
	}
	return lib
}

// nativeResources serves the plugins' resources as MCP resources unless
// the config turns that off (gateway { native_resources = false }).
func nativeResources(cfg *config.Config, lib *native.Library) gateway.ResourceSource {
	if !cfg.Gateway.NativeResources {
		return nil
	}
	return lib
}

// nativeCompletions serves completion/complete when some plugin completes,
// or may: its stored manifest says so, or it has none yet and is of a kind
// that can (an MCP server, a third-party plugin). The capability is fixed
// at start, so a plugin not yet learned counts as one that may.
func nativeCompletions(cfg *config.Config, specs []supervisor.Spec, lib *native.Library) gateway.Completer {
	if !cfg.Gateway.NativePrompts && !cfg.Gateway.NativeResources {
		return nil
	}
	store := catalog.ManifestStore{Dir: cfg.Gateway.StateDir}
	types := map[string]string{}
	for _, p := range cfg.Plugins {
		types[p.Name] = p.Type
	}
	for _, spec := range specs {
		m, err := store.Load(supervisor.ManifestKey(spec))
		switch {
		case err == nil && m != nil:
			if m.Info.Capabilities.Completions {
				return lib
			}
		case types[spec.Name] == "mcp-stdio" || types[spec.Name] == "":
			return lib
		}
	}
	return nil
}
