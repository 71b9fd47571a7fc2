package mcpstdio_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// A SIGSTOPped server keeps its process and pipes; only a request it must
// answer shows it is gone, and Health is that request.
func TestHealthPingsTheServer(t *testing.T) {
	h := start(t, everything(t))
	hc, ok := h.host.(protov1.HealthChecker)
	if !ok {
		t.Fatalf("%T has no Health", h.host)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hc.Health(ctx); err != nil {
		t.Fatalf("Health of a running server: %v", err)
	}
	pid := h.b.ServerPID()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGCONT) }()
	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	begin := time.Now()
	err := hc.Health(ctx)
	if err == nil || !strings.Contains(err.Error(), "did not answer ping") {
		t.Fatalf("Health of a frozen server: %v", err)
	}
	if d := time.Since(begin); d > 3*time.Second {
		t.Errorf("Health of a frozen server took %v", d)
	}
}

// Stop ends the server the polite way first: EOF on its stdin, which
// server-everything answers by exiting 0. The shell around it records that.
func TestStopClosesTheServersStdinFirst(t *testing.T) {
	record := filepath.Join(t.TempDir(), "exit")
	server := testparts.NodeBin(t, "mcp-server-everything")
	h := start(t, map[string]any{"command": "sh", "args": []string{"-c",
		`"$0" stdio; echo "exit $?" > "$1"`, server, record}})
	// At once after the start: server-everything asks its client for roots
	// 350 ms after initialize, and exits on EOF only once that was answered.
	st, ok := h.host.(protov1.Stopper)
	if !ok {
		t.Fatalf("%T has no Stop", h.host)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := st.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(record)
	if err != nil || strings.TrimSpace(string(got)) != "exit 0" {
		t.Fatalf("server's exit as recorded: %q, %v", got, err)
	}
	select {
	case err := <-h.exits:
		t.Errorf("a stop was reported as the server dying: %v", err)
	default:
	}
}

// go-plugin's handshake variables are the plugin's; the server it starts
// must not see them (a client certificate among them).
func TestServerGetsNoHandshakeVariables(t *testing.T) {
	for _, k := range []string{"TOOLGATE_PLUGIN", "PLUGIN_CLIENT_CERT", "PLUGIN_UNIX_SOCKET_DIR",
		"PLUGIN_PROTOCOL_VERSIONS", "PLUGIN_MIN_PORT", "PLUGIN_MAX_PORT", "PLUGIN_MULTIPLEX_GRPC"} {
		t.Setenv(k, "leaked")
	}
	t.Setenv("KEPT_VARIABLE", "kept")
	h := start(t, everything(t))
	env := textOf(h.call(t, "get-env", map[string]any{}))
	if !strings.Contains(env, "KEPT_VARIABLE") {
		t.Fatalf("get-env lacks the plugin's own variables: %s", env)
	}
	if strings.Contains(env, "leaked") {
		t.Errorf("handshake variables reached the server: %s", env)
	}
}
