package mcpstdio_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/plugins/mcpstdio"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestConfigErrors(t *testing.T) {
	h := newHarness(t)
	notExec := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  map[string]any
		want map[string]string // path → part of the message
	}{
		{"no command", map[string]any{}, map[string]string{"command": "is required"}},
		{"missing executable", map[string]any{"command": "no-such-mcp-server-anywhere"},
			map[string]string{"command": `"no-such-mcp-server-anywhere" is not an executable in PATH (` + os.Getenv("PATH") + `); give its absolute path`}},
		{"missing from env's PATH", map[string]any{"command": "true", "env": map[string]string{"PATH": "/no/such/dir"}},
			map[string]string{"command": `"true" is not an executable in PATH (/no/such/dir)`}},
		{"not executable", map[string]any{"command": notExec}, map[string]string{"command": "not an executable"}},
		{"relative to cwd", map[string]any{"command": "./nope", "cwd": t.TempDir()},
			map[string]string{"command": "no such file"}},
		{"unknown setting", map[string]any{"command": "true", "comand": "x"}, map[string]string{"comand": `did you mean "command"`}},
		{"wrong type", map[string]any{"command": "true", "args": "stdio"}, map[string]string{"args": "expected a list, got a string"}},
		{"every field at once", map[string]any{"init_timeout": "soon", "protocol_version": "2099-01-01",
			"cwd": "/no/such/dir", "env": map[string]string{"A=B": "c"}},
			map[string]string{"command": "is required", "init_timeout": "not a duration",
				"protocol_version": "unsupported", "cwd": "no such file", "env.A=B": "not a valid"}},
		{"negative timeout", map[string]any{"command": "true", "init_timeout": "-1s"}, map[string]string{"init_timeout": "must be positive"}},
		{"handshake-less protocol", map[string]any{"command": "true", "protocol_version": "2026-07-28"},
			map[string]string{"protocol_version": "2025-11-25"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := h.configure(tc.cfg)
			var ce *protov1.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("Configure = %v; want a ConfigError", err)
			}
			got := map[string]string{}
			for _, f := range ce.Fields {
				got[f.Path] = f.Message
			}
			for path, part := range tc.want {
				if !strings.Contains(got[path], part) {
					t.Errorf("field %q: got %q, want it to mention %q (all: %v)", path, got[path], part, ce.Fields)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("got problems %v; want exactly %v", got, tc.want)
			}
		})
	}
}

func TestStartupFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(t *testing.T) map[string]any
		want []string
	}{
		{"everything bogus", func(t *testing.T) map[string]any { return everything(t, "bogus") },
			[]string{"exit status 1", "Unknown transport: bogus"}},
		{"filesystem without a directory", func(t *testing.T) map[string]any {
			return map[string]any{"command": testparts.NodeBin(t, "mcp-server-filesystem"), "args": []string{"/nonexistent"}}
		}, []string{"exit status 1", "None of the specified directories are accessible"}},
		{"silent server", func(*testing.T) map[string]any {
			return map[string]any{"command": "sh", "args": []string{"-c", "echo waiting forever >&2; exec sleep 60"}, "init_timeout": "300ms"}
		}, []string{"deadline exceeded", "waiting forever"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			began := time.Now()
			err := h.configure(tc.cfg(t))
			if err == nil {
				t.Fatal("Configure succeeded")
			}
			for _, part := range tc.want {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("Configure error %q does not mention %q", err, part)
				}
			}
			t.Logf("failed in %v: %v", time.Since(began).Round(time.Millisecond), err)
			if _, err := h.host.ListTools(context.Background()); err == nil {
				t.Error("ListTools answered after a failed Configure")
			}
			select {
			case err := <-h.exits:
				t.Errorf("OnServerExit called for a server that never started: %v", err)
			default:
			}
		})
	}
}

func TestServerKilled(t *testing.T) {
	h := start(t, everything(t))
	pid := h.b.ServerPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-h.exits:
		var ee *mcpstdio.ExitError
		if !errors.As(err, &ee) || ee.Status != "signal: killed" {
			t.Errorf("OnServerExit(%v); want an ExitError with status \"signal: killed\"", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnServerExit not called within 10s of SIGKILL")
	}
	// A call now is a failure that says what happened, never a hang.
	res, err := h.callWith(t, &protov1.CallRequest{Name: "echo",
		Arguments: mustJSON(t, map[string]any{"message": "anyone?"})}, &plugintest.Events{})
	if err == nil && (!res.IsError || !strings.Contains(textOf(res), mcpstdio.ErrServerGone.Error())) {
		t.Errorf("call to a dead server = %+v", res)
	}
}

func TestCloseDoesNotReportExit(t *testing.T) {
	h := start(t, everything(t))
	pid := h.b.ServerPID()
	if err := h.b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("server %d still there after Close: %v", pid, err)
	}
	select {
	case err := <-h.exits:
		t.Errorf("OnServerExit(%v) after Close", err)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestConfigureOnce(t *testing.T) {
	h := start(t, fixture(t))
	if err := h.configure(fixture(t)); err == nil {
		t.Error("a second Configure succeeded")
	}
	if tools, err := h.host.ListTools(context.Background()); err != nil || !slices.Contains(toolNames(tools), "rich") {
		t.Errorf("the first server stopped serving: %v, %v", toolNames(tools), err)
	}
}

func TestBeforeConfigure(t *testing.T) {
	b := mcpstdio.New(hclog.NewNullLogger())
	defer b.Close()
	if _, err := b.ListTools(context.Background()); !errors.Is(err, mcpstdio.ErrNotConfigured) {
		t.Errorf("ListTools = %v; want ErrNotConfigured", err)
	}
	if _, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "x"}, &plugintest.Events{}); !errors.Is(err, mcpstdio.ErrNotConfigured) {
		t.Errorf("CallTool = %v; want ErrNotConfigured", err)
	}
	info, err := b.GetInfo(context.Background())
	if err != nil || info.Name != mcpstdio.Name || !info.Capabilities.Tools {
		t.Errorf("GetInfo = %+v, %v", info, err)
	}
}

// TestSilentServerWithinStartTimeout checks that a server that never answers
// is given up on before the host's own deadline for Configure (the plugin's
// start_timeout) when that comes before init_timeout, so the host hears what
// went wrong, with the server's stderr, instead of a bare deadline.
func TestSilentServerWithinStartTimeout(t *testing.T) {
	h := newHarness(t)
	raw := mustJSON(t, map[string]any{"command": "sh", "args": []string{"-c", "echo waiting forever >&2; exec sleep 60"}})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	err := h.host.Configure(ctx, raw)
	if err == nil {
		t.Fatal("Configure succeeded")
	}
	if ctx.Err() != nil {
		t.Fatalf("Configure answered after the host's deadline: %v", err)
	}
	for _, part := range []string{"initialize: no answer within", "what the plugin's start_timeout left of init_timeout 30s", "waiting forever"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("Configure error %q does not mention %q", err, part)
		}
	}
}
