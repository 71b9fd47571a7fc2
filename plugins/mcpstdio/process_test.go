package mcpstdio_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/plugins/mcpstdio"
	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// startPluginProcess runs this test binary as an mcp-stdio plugin process,
// configured with server-everything, and returns it with the server's pid.
func startPluginProcess(t *testing.T) (*pluginhost.Plugin, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := pluginhost.Start(ctx, pluginhost.Config{
		Name: "everything", Path: os.Args[0],
		Env:    append(os.Environ(), servePluginEnv+"=1"),
		Logger: hclog.NewNullLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(5 * time.Second) })
	raw, _ := json.Marshal(everything(t))
	if err := p.Configure(ctx, raw); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	res, err := p.CallTool(ctx, &protov1.CallRequest{Name: "echo", Arguments: json.RawMessage(`{"message":"across"}`)}, &plugintest.Events{})
	if err != nil || textOf(res) != "Echo: across" {
		t.Fatalf("echo through the plugin process = %+v, %v", res, err)
	}
	children := mcpstdio.ChildPIDs(p.Pid())
	if len(children) != 1 {
		t.Fatalf("plugin %d has children %v; want the one server", p.Pid(), children)
	}
	return p, children[0]
}

// TestPluginProcessEndsWithServer checks the host notices a dead server: the
// plugin process exits with status 1 and says why on stderr.
func TestPluginProcessEndsWithServer(t *testing.T) {
	p, server := startPluginProcess(t)
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(15 * time.Second):
		t.Fatal("the plugin process outlived its server by 15s")
	}
	if status := p.ExitStatus(); status != "exit status 1" {
		t.Errorf("plugin exit status %q; want \"exit status 1\"", status)
	}
	// The host may read the plugin's last stderr lines just after its exit.
	said := func() bool {
		stderr := strings.Join(p.Stderr(), "\n")
		return strings.Contains(stderr, "mcp server exited (signal: killed)")
	}
	if !waitFor(5*time.Second, said) {
		t.Errorf("plugin stderr does not say the server was killed:\n%s", strings.Join(p.Stderr(), "\n"))
	}
}

// TestPluginProcessStopEndsServer checks the server shares the plugin's
// process group, so stopping the plugin leaves no server behind.
func TestPluginProcessStopEndsServer(t *testing.T) {
	p, server := startPluginProcess(t)
	if pgid, err := syscall.Getpgid(server); err != nil || pgid != p.Pid() {
		t.Errorf("server process group %d (%v); want the plugin's, %d", pgid, err, p.Pid())
	}
	p.Stop(5 * time.Second)
	if !waitFor(10*time.Second, func() bool { return processGone(server) }) {
		t.Errorf("server %d still runs after the plugin stopped", server)
	}
}

// processGone reports whether pid has exited; a zombie nobody reaps counts.
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	// The state follows the parenthesized command name.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
