// Package gatewaytest builds the real toolgate binary and runs it as a
// gateway for tests of the packages that talk to one (client, bridge, the
// CLI), the way net/http/httptest runs a real server: no fake gateway can
// drift from the real one's sessions, streams and restarts.
package gatewaytest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// Binaries are the executables Build made.
type Binaries struct {
	Toolgate, Hello string
	MCPStdio        string // toolgate-mcp-stdio, beside Toolgate, which runs it for mcp-stdio plugins
	Dir             string
}

// Main is a TestMain for packages that need the binaries: it builds them into
// a temporary directory and stores them in *bins, runs the tests, removes the
// directory and exits with the tests' status. check, when not nil, runs after
// passing tests (a goroutine-leak check, say) and fails the run with its error.
func Main(m *testing.M, bins **Binaries, check func() error) {
	dir, err := os.MkdirTemp("", "toolgate-gatewaytest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *bins, err = Build(dir); err != nil {
		os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 && check != nil {
		if err := check(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// Build compiles toolgate, its mcp-stdio wrapper and the hello example
// plugin into dir. Call it once per test binary, from TestMain.
func Build(dir string) (*Binaries, error) {
	b := &Binaries{Toolgate: filepath.Join(dir, "toolgate"), Hello: filepath.Join(dir, "hello-plugin"),
		MCPStdio: filepath.Join(dir, "toolgate-mcp-stdio"), Dir: dir}
	for out, pkg := range map[string]string{
		b.Toolgate: "github.com/toolgate/toolgate/cmd/toolgate",
		b.MCPStdio: "github.com/toolgate/toolgate/cmd/toolgate-mcp-stdio",
		b.Hello:    "github.com/toolgate/toolgate/plugins/examples/hello",
	} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go build %s: %w\n%s", pkg, err, stderr.String())
		}
	}
	return b, nil
}

// HelloConfig writes a config serving only the hello plugin (started with
// the gateway) into dir and returns its path.
func (b *Binaries) HelloConfig(t testing.TB, dir string, extra string) string {
	t.Helper()
	path := filepath.Join(dir, "toolgate.hcl")
	cfg := fmt.Sprintf(`gateway {
  state_dir = %q
}

plugin "hello" {
  path       = %q
  auto_start = true
}
%s`, filepath.Join(dir, "state"), b.Hello, extra)
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Gateway is a `toolgate serve` process on a fixed loopback port, so it can
// be restarted at the same URL.
type Gateway struct {
	URL    string
	t      testing.TB
	bin    string
	config string
	addr   string
	env    []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	stderr *testparts.Buffer
}

// Start runs a gateway for config and waits until it answers; it is
// stopped when the test ends.
func Start(t testing.TB, bin, config string, env ...string) *Gateway {
	t.Helper()
	addr := FreeAddr(t)
	g := &Gateway{URL: "http://" + addr + "/mcp", t: t, bin: bin, config: config, addr: addr, env: env}
	g.Restart()
	t.Cleanup(g.Stop)
	return g
}

// FreeAddr finds a loopback port nobody listens on.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Restart stops the gateway if it runs and starts a new process at the same
// address (every session of the old one is gone).
func (g *Gateway) Restart() {
	g.t.Helper()
	g.Stop()
	g.StartAgain()
}

// StartAgain starts the gateway after Stop and waits until it answers.
func (g *Gateway) StartAgain() {
	g.t.Helper()
	cmd := exec.Command(g.bin, "serve", "--config", g.config, "--http", g.addr)
	cmd.Env = append(os.Environ(), g.env...)
	stderr := &testparts.Buffer{}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		g.t.Fatalf("start gateway: %v", err)
	}
	g.mu.Lock()
	g.cmd, g.stderr = cmd, stderr
	g.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(g.URL)
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("gateway did not come up at %s: %v\n%s", g.URL, err, g.Stderr())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop ends the gateway with SIGTERM (graceful) and waits for it and its
// plugins; SIGKILL to the group after 15 s.
func (g *Gateway) Stop() {
	cmd := g.take()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// Kill ends the gateway and its plugins with SIGKILL, as a crash or an OOM
// kill would, and waits for it.
func (g *Gateway) Kill() {
	cmd := g.take()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
}

// take hands over the running process, if any, to the one ending it.
func (g *Gateway) take() *exec.Cmd {
	g.mu.Lock()
	defer g.mu.Unlock()
	cmd := g.cmd
	g.cmd = nil
	return cmd
}

// Stderr is what the gateway logged so far.
func (g *Gateway) Stderr() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stderr == nil {
		return ""
	}
	return g.stderr.String()
}

// Run runs the toolgate binary with args and returns stdout, stderr and the
// exit code; err is for a binary that could not run or was killed.
func Run(ctx context.Context, bin string, env []string, args ...string) (stdout, stderr string, code int, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return o.String(), e.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return o.String(), e.String(), -1, err
	}
	return o.String(), e.String(), 0, nil
}
