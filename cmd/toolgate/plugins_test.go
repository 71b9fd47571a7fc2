package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

func TestPluginsCommands(t *testing.T) {
	_, url := helloGateway(t)

	r := tg(t, nil, "plugins", url)
	wantExit(t, r, 0, []string{"PLUGIN", "STATE", "hello", "running", "4"}, nil)
	r = tg(t, nil, "plugins", "status", url, "-o", "json")
	var ps []struct {
		Name, State string
		Tools, Pid  int
	}
	if err := json.Unmarshal([]byte(r.stdout), &ps); err != nil || len(ps) != 1 || ps[0].State != "running" || ps[0].Pid == 0 {
		t.Fatalf("plugins status -o json: %v %+v\n%s", err, ps, r.stdout)
	}
	firstPid := ps[0].Pid

	r = tg(t, nil, "plugins", "stop", "hello", url)
	wantExit(t, r, 0, []string{"hello", "stopped"}, nil)
	r = tg(t, nil, "call", "x_hello_echo", "--arg", "text=hi", url)
	wantExit(t, r, 1, nil, []string{"hello"})
	r = tg(t, nil, "plugins", "start", "hello", url, "-o", "json")
	wantExit(t, r, 0, []string{`"state": "running"`}, nil)
	r = tg(t, nil, "plugins", "restart", "hello", url, "-o", "json")
	var p struct {
		State string
		Pid   int
	}
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || p.State != "running" || p.Pid == 0 || p.Pid == firstPid {
		t.Errorf("plugins restart -o json: %v %+v (first pid %d)\n%s", err, p, firstPid, r.stdout)
	}
	r = tg(t, nil, "plugins", "status", "hello", url)
	wantExit(t, r, 0, []string{"hello", "running"}, nil)
	r = tg(t, nil, "plugins", "start", "nosuch", url)
	wantExit(t, r, 1, nil, []string{`no plugin named "nosuch"`})
}

// The table cuts a plugin's last error to one line; asked about one plugin,
// status prints all of it, so every problem of a config error is there.
func TestPluginsStatusShowsTheWholeLastError(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "toolgate.hcl")
	src := `gateway {
  state_dir = "state"
}

plugin "bad" {
  type = "mcp-stdio"
  config {
    command      = "sh"
    cwd          = "/no/such/dir"
    init_timeout = "0s"
  }
}
`
	if err := os.WriteFile(cfg, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "plugins", "status", "bad", "--config", cfg)
	wantExit(t, r, 0, []string{"bad", "failed", "\nlast error:\n  " + cfg + ":"}, nil)
	_, full, _ := strings.Cut(r.stdout, "last error:")
	for _, want := range []string{"config.cwd:", "config.init_timeout: must be positive"} {
		if !strings.Contains(full, want) {
			t.Errorf("status of one plugin lacks %q:\n%s", want, r.stdout)
		}
	}
	r = tg(t, nil, "plugins", "--config", cfg)
	wantExit(t, r, 0, []string{"bad", "failed"}, nil)
	if strings.Contains(r.stdout, "last error:") {
		t.Errorf("the table of every plugin grew a last error section:\n%s", r.stdout)
	}
}

// A tool left out for a taken name shows in the table too, not only in
// -o json and core_plugin_get. The fixture server (official TypeScript SDK)
// registers a second tool named as one it has when asked.
func TestPluginsTableShowsCollisions(t *testing.T) {
	fixture, err := filepath.Abs(filepath.Join("..", "..", "plugins", "mcpstdio", "testdata", "fixture-server.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(testparts.NodeModules(t), "node_modules", "@modelcontextprotocol", "sdk")
	_, url := helloGateway(t, fmt.Sprintf(`
plugin "fx" {
  type        = "mcp-stdio"
  auto_start  = true
  destructive = "allow"
  config {
    command = "node"
    args    = [%q]
    env     = { MCP_SDK_DIR = %q }
  }
}
`, fixture, sdk))
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := tg(t, nil, "call", "x_fx_add-tool", "--arg", "name=rich", url)
		if r.code == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fx did not add its tool: %+v", r)
		}
		time.Sleep(100 * time.Millisecond)
	}
	want := []string{"left out of plugin fx (name taken):", `tool "rich" of plugin "fx" would be exposed as x_fx_rich`}
	for {
		r := tg(t, nil, "plugins", url)
		if strings.Contains(r.stdout, "name taken") || time.Now().After(deadline) {
			wantExit(t, r, 0, want, nil)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
