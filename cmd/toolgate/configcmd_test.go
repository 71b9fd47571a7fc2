package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// config validate checks plugin settings before anything runs: the plugin is
// started and asked for its config schema, never configured, and every
// problem is reported at once at its file:line:col.
func TestConfigValidateChecksPluginSettings(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hcl")
	src := fmt.Sprintf(`gateway {
  state_dir = %q
}

plugin "hello" {
  path = %q
  config {
    greeting = "hi"
  }
}

plugin "gone" {
  path = "./no-such-plugin"
}
`, filepath.Join(dir, "state"), bins.Hello)
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "config", "validate", bad)
	wantExit(t, r, 1, nil, []string{
		bad + `:8:16: plugin "hello": config.greeting: unknown setting`,
		bad + `:13:10: plugin "gone": executable ` + filepath.Join(dir, "no-such-plugin") + ` does not exist`,
	})

	good := filepath.Join(dir, "good.hcl")
	if err := os.WriteFile(good, []byte(fmt.Sprintf("plugin \"hello\" {\n  path = %q\n}\n", bins.Hello)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = tg(t, []string{"XDG_STATE_HOME=" + dir}, "config", "validate", good)
	wantExit(t, r, 0, []string{good + ": ok (1 plugin)\n"}, nil)
}

// A plugin's config schema cached in its manifest is used as it is: the
// plugin here would fail to start, so only the manifest can have answered.
func TestConfigValidateUsesTheCachedManifest(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "cached-plugin")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "toolgate.hcl")
	state := filepath.Join(dir, "state")
	src := fmt.Sprintf("gateway {\n  state_dir = %q\n}\n\nplugin \"cached\" {\n  path = %q\n  config {\n    ulr = \"http://x\"\n  }\n}\n", state, exe)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(src), path)
	if err != nil {
		t.Fatal(err)
	}
	m := &catalog.Manifest{Info: protov1.Info{Name: "cached", ProtocolMinor: 1, ConfigSchema: json.RawMessage(
		`{"type":"object","properties":{"url":{"type":"string"}},"additionalProperties":false}`)}}
	if err := (catalog.ManifestStore{Dir: state}).Save(supervisor.ManifestKey(specs(cfg, findLauncher("unused"))[0]), m); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "config", "validate", path)
	wantExit(t, r, 1, nil, []string{path + `:8:11: plugin "cached": config.ulr: unknown setting; did you mean "url"?`})
}

// The built-in plugins describe their config blocks too, so a misspelt or
// mistyped setting of mcp-stdio, prometheus or kubernetes is reported before
// any of them starts a server or dials a cluster.
func TestConfigValidateChecksBuiltinPluginSettings(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hcl")
	src := fmt.Sprintf(`gateway {
  state_dir = %q
}

plugin "files" {
  type = "mcp-stdio"
  config {
    command = "true"
    argz    = ["/tmp"]
  }
}

plugin "prom" {
  type = "prometheus"
  config {
    url     = "http://127.0.0.1:9090"
    timeout = 5
  }
}

plugin "k8s" {
  type = "kubernetes"
  config {
    read_onyl = false
  }
}
`, filepath.Join(dir, "state"))
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "config", "validate", bad)
	wantExit(t, r, 1, nil, []string{
		bad + `:9:15: plugin "files": config.argz: unknown setting`,
		`did you mean "args"`,
		bad + `:17:15: plugin "prom": config.timeout: got number, want string`,
		bad + `:24:17: plugin "k8s": config.read_onyl: unknown setting`,
		`did you mean "read_only"`,
	})
}

// config validate -o json gives CI and editors each problem's place as
// fields, with the same exit status as the text.
func TestConfigValidateJSON(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hcl")
	if err := os.WriteFile(bad, []byte("gateway {\n  log_level = \"inf\"\n}\n\nlisen {\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "config", "validate", "-o", "json", bad)
	wantExit(t, r, 1, nil, nil)
	var got validation
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	want := []problem{
		{File: bad, Line: 2, Column: 15, Message: `unknown log_level "inf"; did you mean "info"?`},
		{File: bad, Line: 5, Column: 1, Message: `Unsupported block type; Blocks of type "lisen" are not expected here. Did you mean "listen"?`},
	}
	if got.Valid || got.File != bad || fmt.Sprint(got.Problems) != fmt.Sprint(want) {
		t.Errorf("config validate -o json = %+v, want problems %+v", got, want)
	}

	good := filepath.Join(dir, "good.hcl")
	if err := os.WriteFile(good, []byte("listen {\n  http = \"0.0.0.0:18400\"\n  allow_unauthenticated = true\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = tg(t, nil, "config", "validate", "--output=json", good)
	wantExit(t, r, 0, []string{`"valid": true`, `"problems": []`, `"warnings": [`, "is not loopback", "allow_unauthenticated is set"}, nil)
	wantExit(t, tg(t, nil, "config", "validate", "-o", "yaml", good), 2, nil, []string{`-o "yaml": want table or json`})
	wantExit(t, tg(t, nil, "version", "-o", "json"), 0, []string{`"version": "`, `"plugin_protocol": 1`}, nil)
}

// config validate checks what serve would run: the TOOLGATE_* variables
// serve layers over the file, named when one is wrong.
func TestConfigValidateAppliesTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "toolgate.hcl")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("plugin \"hello\" {\n  path = %q\n}\n", bins.Hello)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tg(t, []string{"XDG_STATE_HOME=" + dir, "TOOLGATE_LISTEN_HTTP=not-an-address"}, "config", "validate", file)
	wantExit(t, r, 1, nil, []string{"TOOLGATE_LISTEN_HTTP: "})
	// No bind: validate only reads the address.
	r = tg(t, []string{"XDG_STATE_HOME=" + dir, "TOOLGATE_LISTEN_HTTP=0.0.0.0:18401"}, "config", "validate", file)
	wantExit(t, r, 1, nil, []string{"TOOLGATE_LISTEN_HTTP: listen address \"0.0.0.0:18401\" is not loopback and no token or oauth is configured"})
	r = tg(t, []string{"XDG_STATE_HOME=" + dir, "TOOLGATE_LISTEN_HTTP=0.0.0.0:18401", "TOOLGATE_TOKEN=t"}, "config", "validate", file)
	wantExit(t, r, 0, []string{file + ": ok (1 plugin)\n"}, []string{"warning: TOOLGATE_LISTEN_HTTP: listen address \"0.0.0.0:18401\" is not loopback"})
}

// A misspelt TOOLGATE_* variable changes nothing; validate says which one was meant.
func TestConfigValidateWarnsOfMisspeltVariables(t *testing.T) {
	cfg := bins.HelloConfig(t, t.TempDir(), "")
	r := tg(t, []string{"TOOLGATE_LOGLEVEL=debug"}, "config", "validate", cfg)
	wantExit(t, r, 0, []string{": ok"}, []string{"warning: environment: TOOLGATE_LOGLEVEL is not a variable toolgate reads, so it changes nothing; did you mean TOOLGATE_LOG_LEVEL?"})
}
