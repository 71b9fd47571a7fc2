package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// recordingServer is server-everything under a shell that writes how the
// server exited to record: it exits 0 on EOF of its stdin, and the shell
// records nothing when the whole group is SIGKILLed.
func recordingServer(t *testing.T, name, record string) string {
	server := testparts.NodeBin(t, "mcp-server-everything")
	return fmt.Sprintf("plugin %q {\n  type = \"mcp-stdio\"\n  auto_start = true\n  config {\n    command = \"sh\"\n    args = %s\n  }\n}\n",
		name, hclList([]string{"-c", `"$0" stdio; echo "exit $?" > "$1"`, server, record}))
}

func TestStopsArePolite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	records := map[string]string{}
	var plugins strings.Builder
	for _, name := range []string{"stopped", "restarted", "shutdown"} {
		records[name] = filepath.Join(dir, name)
		plugins.WriteString(recordingServer(t, name, records[name]))
	}
	g := startGateway(t, setup{Plugins: plugins.String()})
	c := connectHTTP(t, g.URL)
	for name := range records {
		c.waitPlugin(ctx, name, 30*time.Second, running)
	}
	var st pluginStatus
	c.meta(ctx, "call_tool", map[string]any{"name": "core_plugin_stop", "arguments": map[string]any{"name": "stopped"}}, &st)
	c.meta(ctx, "call_tool", map[string]any{"name": "core_plugin_restart", "arguments": map[string]any{"name": "restarted"}}, &st)
	c.close()
	if err := g.stop(syscall.SIGTERM, 30*time.Second); err != nil {
		t.Errorf("gateway exit after SIGTERM: %v", err)
	}
	for name, record := range records {
		got, err := os.ReadFile(record)
		if err != nil || strings.TrimSpace(string(got)) != "exit 0" {
			t.Errorf("%s: the server's exit as recorded: %q, %v; want it to see EOF on stdin and exit 0", name, got, err)
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
