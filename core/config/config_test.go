package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
)

func TestLoadFull(t *testing.T) {
	t.Setenv("TG_TEST_TOKEN", "first")
	c, err := Load("testdata/full.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata")

	wantListen := Listen{
		HTTP:           "127.0.0.1:8700",
		Tokens:         []string{"first", "second"},
		AllowedOrigins: []string{"http://localhost:3000"},
		AllowedHosts:   []string{"localhost"},
		Metrics:        true,
		Limits:         DefaultLimits(),
	}
	if !reflect.DeepEqual(c.Listen, wantListen) {
		t.Errorf("Listen = %+v, want %+v", c.Listen, wantListen)
	}
	wantGateway := Gateway{
		CallTimeout:     30 * time.Second,
		ShutdownGrace:   2 * time.Second,
		MaxRequestBytes: 1 << 20,
		StateDir:        filepath.Join(dir, "state"),
		LogLevel:        "debug",
		AuditLogMaxSize: DefaultAuditLogMaxSize,
		AuditLogKeep:    DefaultAuditLogKeep,
		NativePrompts:   true,
		NativeResources: true,
	}
	if c.Gateway != wantGateway {
		t.Errorf("Gateway = %+v, want %+v", c.Gateway, wantGateway)
	}
	if len(c.Plugins) != 2 || c.Plugins[0].Name != "everything" || c.Plugins[1].Name != "hello" {
		t.Fatalf("plugins out of file order: %+v", c.Plugins)
	}

	ev, ok := c.Plugin("everything")
	if !ok {
		t.Fatal(`Plugin("everything") not found`)
	}
	if ev.Type != "mcp-stdio" || ev.Path != "" || !ev.AutoStart || ev.Disabled {
		t.Errorf("everything = %+v", ev)
	}
	if want := map[string]string{"NODE_ENV": "production", "RETRIES": "3"}; !reflect.DeepEqual(ev.Env, want) {
		t.Errorf("Env = %v, want %v", ev.Env, want)
	}
	if want := map[string]string{"category": "demo"}; !reflect.DeepEqual(ev.Labels, want) {
		t.Errorf("Labels = %v, want %v", ev.Labels, want)
	}
	const wantJSON = `{"args":["-y","@modelcontextprotocol/server-everything"],"command":"npx",` +
		`"headers":{"Accept":"text/plain","X-Id":"abc"},"limit":9007199254740993,"ratio":0.25,` +
		`"secret":"s3cret\n","server":[{"url":"http://a"},{"url":"http://b"}],"upstream":{"eu":{"weight":1}}}`
	if string(ev.Config) != wantJSON {
		t.Errorf("Config =\n%s\nwant\n%s", ev.Config, wantJSON)
	}
	if !json.Valid(ev.Config) {
		t.Error("Config is not valid JSON")
	}
	if ev.DeclRange.Start.Line != 17 || ev.DeclRange.Start.Column != 1 {
		t.Errorf("DeclRange = %s", pos(ev.DeclRange))
	}

	hello, _ := c.Plugin("hello")
	want := Plugin{
		Name:        "hello",
		Path:        filepath.Join(dir, "bin", "hello-plugin"),
		Args:        []string{"--verbose"},
		IdleTimeout: 5 * time.Minute,
		CallTimeout: 90 * time.Second,
		Disabled:    true,
		Destructive: DestructiveConfirm,
		Config:      json.RawMessage("{}"),
	}
	got := *hello
	got.DeclRange, got.PathRange, got.FieldRange = hcl.Range{}, hcl.Range{}, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hello =\n%+v\nwant\n%+v", got, want)
	}
	if _, ok := c.Plugin("absent"); ok {
		t.Error(`Plugin("absent") found`)
	}
	if c.File != "testdata/full.hcl" || len(c.Warnings) != 0 {
		t.Errorf("File = %q, Warnings = %q", c.File, c.Warnings)
	}
}

func TestDefaults(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/var/lib/xdg")
	c, err := Parse(nil, "empty.hcl")
	if err != nil {
		t.Fatal(err)
	}
	want := Gateway{
		CallTimeout:     60 * time.Second,
		ShutdownGrace:   10 * time.Second,
		MaxRequestBytes: 4 << 20,
		StateDir:        "/var/lib/xdg/toolgate",
		LogLevel:        "info",
		AuditLogMaxSize: DefaultAuditLogMaxSize,
		AuditLogKeep:    DefaultAuditLogKeep,
		NativePrompts:   true,
		NativeResources: true,
	}
	if c.Gateway != want {
		t.Errorf("Gateway = %+v, want %+v", c.Gateway, want)
	}
	if c.Listen.HTTP != "127.0.0.1:8700" || c.Listen.Tokens != nil || len(c.Plugins) != 0 {
		t.Errorf("Listen = %+v, Plugins = %v", c.Listen, c.Plugins)
	}

	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/op")
	c, err = Parse([]byte("gateway {}\nlisten {}\n"), "empty.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if c.Gateway.StateDir != "/home/op/.local/state/toolgate" {
		t.Errorf("StateDir = %q", c.Gateway.StateDir)
	}
}

func TestNativeListsSwitch(t *testing.T) {
	c, err := Parse([]byte("gateway {\n  native_prompts = false\n}\n"), "t.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if c.Gateway.NativePrompts || !c.Gateway.NativeResources {
		t.Errorf("native_prompts = false gave prompts %v, resources %v", c.Gateway.NativePrompts, c.Gateway.NativeResources)
	}
	_, err = Parse([]byte("gateway {\n  native_resources = \"no\"\n}\n"), "t.hcl")
	if err == nil || !strings.Contains(err.Error(), "t.hcl:2") || !strings.Contains(err.Error(), "bool") {
		t.Errorf("native_resources = \"no\": err = %v, want a bool error at t.hcl:2", err)
	}
}

func TestListenTLSAndHTTPOff(t *testing.T) {
	src := `listen {
  http     = ""
  tls_cert = "certs/c.pem"
  tls_key  = "/etc/k.pem"
}`
	c, err := Parse([]byte(src), "/etc/toolgate/toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen.HTTP != "" || c.Listen.TLSCert != "/etc/toolgate/certs/c.pem" || c.Listen.TLSKey != "/etc/k.pem" {
		t.Errorf("Listen = %+v", c.Listen)
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{`listen { http = "localhost:1" }`, nil},
		{`listen { http = "[::1]:1" }`, nil},
		{`listen { http = "0.0.0.0:8700" }`, nil}, // an error, once Layer has run (see TestExposure)
		{"listen {\n  http = \"0.0.0.0:8700\"\n  allow_unauthenticated = true\n}", []string{
			`toolgate.hcl:2:10: listen address "0.0.0.0:8700" is not loopback, so other hosts can reach the gateway; allow_unauthenticated is set and no token or oauth is configured, so any of them can call every tool`,
		}},
		{"listen {\n  http  = \":8700\"\n  token = \"t\"\n}", []string{
			`toolgate.hcl:2:11: listen address ":8700" is not loopback, so other hosts can reach the gateway; without tls_cert and tls_key, tokens cross the network in clear text`,
		}},
		{"listen {\n  http  = \"10.0.0.1:8700\"\n  token = \"t\"\n  tls_cert = \"c\"\n  tls_key = \"k\"\n}", []string{
			`toolgate.hcl:2:11: listen address "10.0.0.1:8700" is not loopback, so other hosts can reach the gateway`,
		}},
	}
	for _, tt := range tests {
		c, err := Parse([]byte(tt.src), "toolgate.hcl")
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if !reflect.DeepEqual(c.Warnings, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.src, c.Warnings, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flagFile := write("flag.hcl", `listen { http = "127.0.0.1:1" }`)
	envFile := write("env.hcl", `listen { http = "127.0.0.1:2" }`)
	write("toolgate.hcl", `listen { http = "127.0.0.1:3" }`)
	t.Chdir(dir)

	old := DefaultSource
	t.Cleanup(func() { DefaultSource = old })
	DefaultSource = []byte(`listen { http = "127.0.0.1:4" }`)

	check := func(flagPath, wantHTTP, wantFile string) {
		t.Helper()
		c, err := Resolve(flagPath)
		if err != nil {
			t.Fatal(err)
		}
		if c.Listen.HTTP != wantHTTP || c.File != wantFile {
			t.Errorf("Resolve(%q) = %s from %s, want %s from %s", flagPath, c.Listen.HTTP, c.File, wantHTTP, wantFile)
		}
	}
	t.Setenv("TOOLGATE_CONFIG", envFile)
	check(flagFile, "127.0.0.1:1", flagFile)
	check("", "127.0.0.1:2", envFile)
	t.Setenv("TOOLGATE_CONFIG", "")
	check("", "127.0.0.1:3", "toolgate.hcl")
	if err := os.Remove("toolgate.hcl"); err != nil {
		t.Fatal(err)
	}
	check("", "127.0.0.1:4", EmbeddedName)

	DefaultSource = nil
	if _, err := Resolve(""); !errors.Is(err, ErrNoDefault) {
		t.Errorf("Resolve without default: %v, want ErrNoDefault", err)
	}
	if _, err := Resolve(filepath.Join(dir, "missing.hcl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Resolve(missing): %v, want ErrNotExist", err)
	}
}

func TestDefaultRelativePaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	old := DefaultSource
	t.Cleanup(func() { DefaultSource = old })
	DefaultSource = []byte(`plugin "hello" { path = "./bin/hello-plugin" }`)
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Plugins[0].Path; p != filepath.Join(dir, "bin", "hello-plugin") {
		t.Errorf("Path = %q, want it under the working directory %s", p, dir)
	}
	if got := pos(c.Plugins[0].DeclRange); got != "<embedded>:1:1" {
		t.Errorf("DeclRange = %s", got)
	}
}

// TestDesignExample keeps the config shown in the design document loadable.
func TestDesignExample(t *testing.T) {
	c, err := Load("testdata/design-example.hcl")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"everything": `{"args":["-y","@modelcontextprotocol/server-everything"],"command":"npx"}`,
		"prom":       `{"url":"http://127.0.0.1:9090"}`,
		"k8s":        `{"kubeconfig":"~/.kube/config","read_only":true}`,
		"hello":      `{}`,
	}
	if len(c.Plugins) != len(want) {
		t.Fatalf("%d plugins, want %d", len(c.Plugins), len(want))
	}
	for _, p := range c.Plugins {
		if got := string(p.Config); got != want[p.Name] {
			t.Errorf("%s config = %s, want %s", p.Name, got, want[p.Name])
		}
	}
	if got := pos(c.Plugins[1].FieldRange("url")); got != "testdata/design-example.hcl:18:18" {
		t.Errorf(`prom FieldRange("url") = %s`, got)
	}
}

func TestMaxCallTimeout(t *testing.T) {
	c, err := Parse([]byte("gateway {\n  max_call_timeout = \"10m\"\n}\n"), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if c.Gateway.MaxCallTimeout != 10*time.Minute {
		t.Errorf("MaxCallTimeout = %s, want 10m", c.Gateway.MaxCallTimeout)
	}
}

// A relative config path that is not there names the directory it was looked
// for in: an IDE starts MCP servers in a directory of its own choosing.
func TestLoadMissingRelativeNamesTheDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := Load("toolgate.hcl")
	if err == nil || !strings.Contains(err.Error(), "working directory, "+dir) || !strings.Contains(err.Error(), "absolute path") {
		t.Errorf("Load of a missing relative path: %v", err)
	}
	_, err = Load(filepath.Join(dir, "missing.hcl"))
	if err == nil || strings.Contains(err.Error(), "working directory") {
		t.Errorf("Load of a missing absolute path: %v", err)
	}
}

// A plugin's destructive policy: confirm unless written, case and spaces
// forgiven, anything else refused where it was written.
func TestDestructivePolicy(t *testing.T) {
	src := `plugin "a" {
  path = "/bin/true"
}
plugin "b" {
  path        = "/bin/true"
  destructive = " Allow "
}
plugin "c" {
  path        = "/bin/true"
  destructive = "deny"
}
`
	c, err := Parse([]byte(src), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{DestructiveConfirm, DestructiveAllow, DestructiveDeny} {
		if got := c.Plugins[i].Destructive; got != want {
			t.Errorf("plugin %s: destructive %q, want %q", c.Plugins[i].Name, got, want)
		}
	}
	cerr := parseErr(t, "plugin \"a\" {\n  path        = \"/bin/true\"\n  destructive = \"ask\"\n}\n")
	if got, want := cerr.Error(), `toolgate.hcl:3:17: unknown destructive policy "ask"; use one of confirm, allow, deny`; !strings.Contains(got, want) {
		t.Errorf("error %q, want it to contain %q", got, want)
	}
}
