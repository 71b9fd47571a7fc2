package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Only an executable file beside toolgate is taken for the wrapper; anything
// else leaves mcp-stdio plugins to a re-executed toolgate.
func TestLauncherFindsTheWrapperBesideToolgate(t *testing.T) {
	for _, tt := range []struct {
		name  string
		place func(path string) error
		found bool
	}{
		{"absent", func(string) error { return nil }, false},
		{"executable file", func(p string) error { return os.WriteFile(p, nil, 0o755) }, true},
		{"file not executable", func(p string) error { return os.WriteFile(p, nil, 0o644) }, false},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			self := filepath.Join(dir, "toolgate")
			wrapper := filepath.Join(dir, mcpStdioWrapper)
			if err := tt.place(wrapper); err != nil {
				t.Fatal(err)
			}
			l := findLauncher(self)
			path, args := l.command("mcp-stdio")
			if tt.found && (path != wrapper || len(args) != 0) {
				t.Errorf("mcp-stdio runs %s %v, want %s", path, args, wrapper)
			}
			if !tt.found && (path != self || strings.Join(args, " ") != "plugin serve mcp-stdio") {
				t.Errorf("mcp-stdio runs %s %v, want %s plugin serve mcp-stdio", path, args, self)
			}
			// The other built-in types always re-execute toolgate.
			if path, args := l.command("prometheus"); path != self || strings.Join(args, " ") != "plugin serve prometheus" {
				t.Errorf("prometheus runs %s %v", path, args)
			}
		})
	}
}

// A wrapper of another version is warned about once per version, and only
// for plugins the wrapper runs.
func TestLauncherWarnsOfAWrapperFromAnotherBuild(t *testing.T) {
	dir := t.TempDir()
	wrapper := filepath.Join(dir, mcpStdioWrapper)
	if err := os.WriteFile(wrapper, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	l := findLauncher(filepath.Join(dir, "toolgate"))
	var out bytes.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Info})
	started := func(path, v string) {
		l.checkVersion(supervisor.Spec{Name: "fs", Path: path}, supervisor.Status{Info: protov1.Info{Version: v}}, logger)
	}
	started(wrapper, version)
	started(filepath.Join(dir, "toolgate"), "v0.1.0") // re-executed toolgate: itself
	if out.Len() != 0 {
		t.Fatalf("warned of a wrapper of the same build:\n%s", out.String())
	}
	started(wrapper, "v0.1.0")
	started(wrapper, "v0.1.0")
	started(wrapper, "v0.2.0")
	got := out.String()
	if n := strings.Count(got, "[WARN]"); n != 2 {
		t.Errorf("%d warnings, want one for each of the two versions:\n%s", n, got)
	}
	for _, want := range []string{"wrapper=" + wrapper, "wrapper_version=v0.1.0", "wrapper_version=v0.2.0", "toolgate_version=" + version} {
		if !strings.Contains(got, want) {
			t.Errorf("the warnings do not say %q:\n%s", want, got)
		}
	}
}
