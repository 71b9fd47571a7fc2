package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/core/client/gatewaytest"
)

// The documented way to write a plugin, end to end as an outside author meets
// it: `plugin init` into a directory outside the repository, a go.mod whose
// replace points at this repository's sdk, the module proxy for everything
// else, the generated test, and the plugin's tool called through a gateway.
func TestPluginInitBuildsTestsAndRuns(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dir := filepath.Join(t.TempDir(), "greeter")
	r := tg(t, nil, "plugin", "init", "greeter", dir)
	wantExit(t, r, 0, []string{`wrote plugin "greeter"`}, nil)
	for _, f := range []string{"go.mod", "main.go", "main_test.go", "Makefile", "README.md", "toolgate.hcl", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("plugin init wrote no %s: %v", f, err)
		}
	}
	sdk, err := filepath.Abs("../../sdk")
	if err != nil {
		t.Fatal(err)
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !strings.Contains(string(gomod), "replace github.com/toolgate/toolgate/sdk => "+sdk+"\n") {
		t.Fatalf("go.mod does not replace the SDK with this repository's (%s):\n%s", sdk, gomod)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	mk := exec.CommandContext(ctx, "make", "test", "build")
	mk.Dir = dir
	// Outside any workspace, as the author's module is.
	mk.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make test build in the generated module: %v\n%s", err, out)
	}

	gw := gatewaytest.Start(t, bins.Toolgate, filepath.Join(dir, "toolgate.hcl"), "XDG_STATE_HOME="+t.TempDir())
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(tg(t, nil, "plugins", "status", "greeter", "--url", gw.URL).stdout, "running") {
		if time.Now().After(deadline) {
			t.Fatalf("the generated plugin did not start:\n%s", gw.Stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	r = tg(t, nil, "call", "x_greeter_greet", "--arg", "name=Ada", "--url", gw.URL)
	wantExit(t, r, 0, []string{"Hello, Ada!"}, nil)

	// The README's call without a server, and the gateway's own state kept
	// beside the plugin rather than in the user's.
	r = tg(t, nil, "call", "--config", filepath.Join(dir, "toolgate.hcl"), "x_greeter_greet", "--arg", "name=Bo")
	wantExit(t, r, 0, []string{"Hello, Bo!"}, nil)
	if _, err := os.Stat(filepath.Join(dir, ".toolgate")); err != nil {
		t.Errorf("toolgate.hcl's state_dir was not used: %v", err)
	}
	mkfile, _ := os.ReadFile(filepath.Join(dir, "Makefile"))
	if !strings.Contains(string(mkfile), "TOOLGATE ?= toolgate\n") {
		t.Errorf("a toolgate built outside the clone should leave make run to PATH:\n%s", mkfile)
	}
}

// make run serves with the toolgate that wrote the module when it sits in
// the clone whose SDK the module builds against: a fresh clone's
// bin/toolgate is on no PATH.
func TestScaffoldServesWithTheClonesToolgate(t *testing.T) {
	for _, tt := range []struct{ exe, sdk, want string }{
		{"/src/toolgate/bin/toolgate", "/src/toolgate/sdk", "/src/toolgate/bin/toolgate"},
		{"/usr/local/bin/toolgate", "/src/toolgate/sdk", "toolgate"},
		{"/tmp/go-build1/exe/toolgate", "/src/toolgate/sdk", "toolgate"},
		{"/my src/bin/toolgate", "/my src/sdk", "toolgate"}, // make would split it
		{"", "/src/toolgate/sdk", "toolgate"},
	} {
		if got := toolgateFor(tt.exe, tt.sdk); got != tt.want {
			t.Errorf("toolgateFor(%q, %q) = %q, want %q", tt.exe, tt.sdk, got, tt.want)
		}
	}
}

func TestPluginInitRefuses(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "plugin", "init", "ok", full)
	wantExit(t, r, 2, nil, []string{"is not empty"})
	r = tg(t, nil, "plugin", "init", "Bad_Name", filepath.Join(t.TempDir(), "x"))
	wantExit(t, r, 2, nil, []string{`invalid plugin name "Bad_Name"`})
	r = tg(t, nil, "plugin", "init", "ok", filepath.Join(t.TempDir(), "x"), "--sdk", t.TempDir())
	wantExit(t, r, 2, nil, []string{"no go.mod of module github.com/toolgate/toolgate/sdk"})
}
