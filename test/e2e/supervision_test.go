package e2e

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// A frozen MCP server keeps its process and pipes, and the plugin process
// above it answers gRPC as ever: only the plugin's health ping, an MCP ping to
// the server, notices it.
func TestFrozenServerIsRestarted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true)})
	c := connectHTTP(t, g.URL)
	tree := findPlugin(ctx, t, g, c, "everything")
	if err := syscall.Kill(tree.Server.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(tree.Server.Pid, syscall.SIGKILL) }()
	st := c.waitPlugin(ctx, "everything", 60*time.Second, func(st pluginStatus) bool {
		return running(st) && st.Pid != tree.Plugin.Pid
	})
	if st.Restarts == 0 {
		t.Errorf("plugin replaced without a restart counted: %+v", st)
	}
	tool, args, want := everythingEcho("thawed")
	r, err := c.callTool(ctx, tool, args)
	if err != nil || r.IsError || r.text() != want {
		t.Fatalf("call after the restart: %+v, %v", r, err)
	}
	if !g.log.contains("did not answer ping") {
		t.Errorf("the gateway log does not say why the plugin was restarted")
	}
}

// recordingServer is server-everything under a shell that appends to record
// how the server exited, after the shell's pid: the server exits 0 on EOF of
// its stdin. A shell that is signalled first records nothing.
func recordingServer(t *testing.T, name, record string) string {
	server := testparts.NodeBin(t, "mcp-server-everything")
	return fmt.Sprintf("plugin %q {\n  type = \"mcp-stdio\"\n  auto_start = true\n  config {\n    command = \"sh\"\n    args = %s\n  }\n}\n",
		name, hclList([]string{"-c", `"$0" stdio; echo "$$ exit $?" >> "$1"`, server, record}))
}

// TestStopsArePolite: every way a plugin is stopped (core_plugin_stop,
// core_plugin_restart, the gateway's SIGTERM) asks its MCP server to quit
// with EOF on its stdin and gives it the stop step to exit on its own. A
// server that exits in that time is never signalled; one that does not (a
// loaded machine can make node that slow, and a frozen one never exits) is
// signalled only after the step, which the plugin logs; either way nothing
// of it is left.
func TestStopsArePolite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	records := map[string]string{}
	var plugins strings.Builder
	for _, name := range []string{"stopped", "restarted", "shutdown", "frozen"} {
		records[name] = filepath.Join(dir, name)
		plugins.WriteString(recordingServer(t, name, records[name]))
	}
	g := startGateway(t, setup{Plugins: plugins.String()})
	c := connectHTTP(t, g.URL)
	// Each server (the shell over node) that is stopped, with its plugin.
	type stoppedServer struct {
		plugin string
		server proc
	}
	var servers []stoppedServer
	for name := range records {
		servers = append(servers, stoppedServer{name, findPlugin(ctx, t, g, c, name).Server})
	}
	seen := g.tree()
	var st pluginStatus
	c.meta(ctx, "call_tool", map[string]any{"name": "core_plugin_stop", "arguments": map[string]any{"name": "stopped"}}, &st)
	c.meta(ctx, "call_tool", map[string]any{"name": "core_plugin_restart", "arguments": map[string]any{"name": "restarted"}}, &st)
	servers = append(servers, stoppedServer{"restarted", findPlugin(ctx, t, g, c, "restarted").Server})
	// A server that cannot take the EOF: only the signals after the step end it.
	for _, s := range servers {
		if s.plugin == "frozen" {
			for _, node := range children(s.server.Pid) {
				if err := syscall.Kill(node.Pid, syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	c.meta(ctx, "call_tool", map[string]any{"name": "core_plugin_stop", "arguments": map[string]any{"name": "frozen"}}, &st)
	seen = append(seen, g.tree()...)
	c.close()
	if err := g.stop(syscall.SIGTERM, 30*time.Second); err != nil {
		t.Errorf("gateway exit after SIGTERM: %v", err)
	}
	for _, s := range servers {
		got, err := os.ReadFile(records[s.plugin])
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		pid := strconv.Itoa(s.server.Pid)
		exited := slices.Contains(strings.Split(string(got), "\n"), pid+" exit 0")
		if exited && s.plugin == "frozen" {
			t.Errorf("frozen: server %v recorded an exit of its own while frozen", s.server)
		}
		if exited {
			continue // asked, and exited on its own
		}
		// Signalled: only after EOF on its stdin and the step, as logged.
		asked := regexp.MustCompile(`toolgate\.` + s.plugin + `(\.\S+)?: mcp server did not exit within [0-9.]+m?s of its stdin closing; sending SIGTERM: pid=` + pid + `\b`)
		if !asked.MatchString(g.log.String()) {
			t.Errorf("%s: server %v neither exited on its own after EOF on its stdin (its records: %q) nor was it signalled after the stop step, as the log would say",
				s.plugin, s.server, got)
		} else {
			t.Logf("%s: server %d did not exit within the stop step and was signalled after it", s.plugin, s.server.Pid)
		}
	}
	for _, p := range seen {
		if p.alive() {
			t.Errorf("process %v outlived the gateway", p)
		}
	}
}

// The plugin's go-plugin handshake variables (a client certificate among
// them) must not reach the MCP server it starts.
func TestServerEnvironmentHasNoHandshakeVariables(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true)})
	c := connectHTTP(t, g.URL)
	c.waitPlugin(ctx, "everything", 30*time.Second, running)
	r, err := c.callTool(ctx, "x_everything_get-env", map[string]any{})
	if err != nil || r.IsError {
		t.Fatalf("get-env: %+v, %v", r, err)
	}
	if !strings.Contains(r.text(), `"PATH"`) {
		t.Fatalf("get-env answered no environment: %s", r.text())
	}
	for _, k := range []string{"TOOLGATE_PLUGIN", "PLUGIN_CLIENT_CERT", "PLUGIN_UNIX_SOCKET_DIR", "PLUGIN_PROTOCOL_VERSIONS", "PLUGIN_MIN_PORT", "PLUGIN_MAX_PORT"} {
		if strings.Contains(r.text(), `"`+k+`"`) {
			t.Errorf("the MCP server sees %s", k)
		}
	}
}

// A SIGKILLed gateway cannot remove its plugins' socket directories; the
// next gateway does.
func TestSocketDirsOfAKilledGatewayAreRemoved(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Short, as unix socket paths must be.
	tmp, err := os.MkdirTemp("", "tg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)
	first := startGateway(t, setup{Plugins: pathPlugin("tp", bins.testplugin, true)})
	c := connectHTTP(t, first.URL)
	c.waitPlugin(ctx, "tp", 30*time.Second, running)
	c.close()
	_ = first.stop(syscall.SIGKILL, 5*time.Second)
	left := socketDirs(t, tmp, first.Proc.Pid)
	if len(left) == 0 {
		t.Fatalf("no socket directory of gateway %d in %s to clean up", first.Proc.Pid, tmp)
	}
	second := startGateway(t, setup{Plugins: pathPlugin("tp", bins.testplugin, true)})
	c = connectHTTP(t, second.URL)
	c.waitPlugin(ctx, "tp", 30*time.Second, running)
	if left := socketDirs(t, tmp, first.Proc.Pid); len(left) > 0 {
		t.Errorf("socket directories of the killed gateway remain: %v", left)
	}
}

func socketDirs(t *testing.T, tmp string, pid int) []string {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "toolgate-sock-"+strconv.Itoa(pid)+"-") {
			out = append(out, e.Name())
		}
	}
	return out
}
