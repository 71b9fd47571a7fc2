package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every problem of every plugin block comes back at once, each at the place
// it was written, before any plugin runs.
func TestCheckPlugins(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "weather-plugin")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	src := `plugin "weather" {
  path = "./weather-plugin"
  config {
    url      = "http://x"
    timout   = "5s"
    retries  = "three"
    auto_start = true
  }
}

plugin "typo" {
  path = "./weather-plugn"
}

plugin "plain" {
  path = "./plain-file"
}

plugin "everything" {
  type = "mcp-stdio"
  config {
    command = "no-such-mcp-server-anywhere"
  }
}

plugin "nope" {
  path = "./nope"
}
`
	cfgPath := filepath.Join(dir, "toolgate.hcl")
	cfg, err := Parse([]byte(src), cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]bool{}
	schemas := func(p *Plugin) (json.RawMessage, error) {
		asked[p.Name] = true
		if p.Type == "mcp-stdio" {
			return nil, nil // describes no schema
		}
		return json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
			"url":{"type":"string"},"timeout":{"type":"string"},"retries":{"type":"integer"}}}`), nil
	}
	err = cfg.CheckPlugins(schemas)
	ce, ok := err.(*Error)
	if !ok {
		t.Fatalf("err = %v, want *Error", err)
	}
	want := []string{
		cfgPath + `:5:16: plugin "weather": config.timout: unknown setting; did you mean "timeout"?`,
		cfgPath + `:6:16: plugin "weather": config.retries: got string, want integer`,
		cfgPath + `:7:18: plugin "weather": config.auto_start: unknown setting; auto_start belongs in the plugin block, outside config {}`,
		cfgPath + `:12:10: plugin "typo": executable ` + filepath.Join(dir, "weather-plugn") + ` does not exist; did you mean "` + exe + `"?`,
		cfgPath + `:16:10: plugin "plain": ` + filepath.Join(dir, "plain-file") + ` is not executable (chmod +x)`,
		cfgPath + `:22:15: plugin "everything": config.command: "no-such-mcp-server-anywhere" is not an executable in PATH`,
		// The directory "home" beside it is no typo of an executable's name.
		cfgPath + `:27:10: plugin "nope": executable ` + filepath.Join(dir, "nope") + ` does not exist`,
	}
	got := strings.Split(ce.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), ce.Error())
	}
	if last := got[len(got)-1]; strings.Contains(last, "did you mean") {
		t.Errorf("a directory offered for an executable: %s", last)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
	if asked["typo"] || asked["plain"] {
		t.Errorf("asked a plugin whose executable is missing for its schema: %v", asked)
	}
}

// A setting given to a plugin that takes none says so, as the plugin itself
// does when it starts, instead of a bare "unknown setting"; a plugin-block
// setting put inside config {} still says where it belongs.
func TestCheckPluginsOfAPluginWithoutSettings(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "hello-plugin")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "toolgate.hcl")
	cfg, err := Parse([]byte(`plugin "hello" {
  path = "./hello-plugin"
  config {
    url        = "http://x"
    auto_start = true
  }
}
`), cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	// What the SDK describes for a plugin with neither Config nor Configure.
	none := func(*Plugin) (json.RawMessage, error) {
		return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`), nil
	}
	err = cfg.CheckPlugins(none)
	want := cfgPath + `:4:18: plugin "hello": config.url: unknown setting; this plugin takes no configuration, so leave config {} out` + "\n" +
		cfgPath + `:5:18: plugin "hello": config.auto_start: unknown setting; auto_start belongs in the plugin block, outside config {}`
	if err == nil || err.Error() != want {
		t.Fatalf("err =\n%v\nwant\n%s", err, want)
	}
}
