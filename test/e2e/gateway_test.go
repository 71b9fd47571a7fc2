package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// setup is one gateway's config: plugin blocks and extra gateway attributes.
type setup struct {
	Plugins  string   // HCL plugin blocks
	Listen   string   // extra attributes of the listen block
	Gateway  string   // extra attributes of the gateway block
	StateDir string   // reused across runs when set; a fresh temp dir otherwise
	Env      []string // more environment of the gateway process, KEY=value
	Toolgate string   // the gateway's executable; bins.toolgate when empty
}

// writeConfig writes the HCL config and returns its path and state dir.
func writeConfig(t *testing.T, s setup) (path, stateDir string) {
	t.Helper()
	dir := t.TempDir()
	stateDir = s.StateDir
	if stateDir == "" {
		stateDir = filepath.Join(dir, "state")
	}
	src := fmt.Sprintf("listen {\n  http = \"127.0.0.1:0\"\n%s\n}\n\ngateway {\n  state_dir = %s\n%s\n}\n\n%s",
		s.Listen, strconv.Quote(stateDir), s.Gateway, s.Plugins)
	path = filepath.Join(dir, "toolgate.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, stateDir
}

// everythingPlugin is the npm reference server run by the built-in mcp-stdio
// plugin; args default to ["stdio"].
func everythingPlugin(t *testing.T, name string, autoStart bool, args ...string) string {
	if len(args) == 0 {
		args = []string{"stdio"}
	}
	return fmt.Sprintf("plugin %q {\n  type = \"mcp-stdio\"\n  auto_start = %v\n  config {\n    command = %s\n    args = %s\n  }\n}\n",
		name, autoStart, strconv.Quote(testparts.NodeBin(t, "mcp-server-everything")), hclList(args))
}

// pathPlugin is an SDK-built plugin executable. Its tools run without
// confirmation: the test plugin's sleep, spawn and exit say nothing of
// themselves, and the tests using them are about what they do
// (destructive_test.go is about confirming).
func pathPlugin(name, path string, autoStart bool) string {
	return fmt.Sprintf("plugin %q {\n  path = %s\n  auto_start = %v\n  destructive = \"allow\"\n}\n", name, strconv.Quote(path), autoStart)
}

func hclList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// gateway is one `toolgate serve` process.
type gateway struct {
	t        *testing.T
	cmd      *exec.Cmd
	Proc     proc
	URL      string // streamable HTTP endpoint
	StateDir string
	log      *logSink
	exited   chan struct{}
	exitErr  error
}

// startGateway runs `toolgate serve` over HTTP and waits until it listens. The
// test's cleanup kills it by pid if it still runs and fails the test on a data
// race the gateway reported.
func startGateway(t *testing.T, s setup) *gateway {
	t.Helper()
	cfg, stateDir := writeConfig(t, s)
	g := &gateway{t: t, StateDir: stateDir, log: &logSink{}, exited: make(chan struct{})}
	exe := s.Toolgate
	if exe == "" {
		exe = bins.toolgate
	}
	g.cmd = exec.Command(exe, "serve", "--config", cfg)
	if len(s.Env) > 0 {
		g.cmd.Env = append(os.Environ(), s.Env...)
	}
	g.cmd.Stdout, g.cmd.Stderr = g.log, g.log
	g.cmd.WaitDelay = 2 * time.Second // a leftover child holding the log pipe must not hang Wait
	// Should the test binary die (a timeout panic), the gateway must not outlive it.
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := g.cmd.Start(); err != nil {
		t.Fatalf("start gateway: %v", err)
	}
	p, _ := lookProc(g.cmd.Process.Pid)
	g.Proc = p
	go func() {
		g.exitErr = g.cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(g.cleanup)
	m, err := g.log.waitFor(regexp.MustCompile(`url=(http://\S+/mcp)`), 30*time.Second, g.exited)
	if err != nil {
		t.Fatalf("gateway did not start serving: %v\n%s", err, g.log.tail(60))
	}
	g.URL = m[1]
	return g
}

func (g *gateway) cleanup() {
	select {
	case <-g.exited:
	default:
		_ = g.cmd.Process.Signal(syscall.SIGKILL)
		<-g.exited
	}
	if g.log.contains("WARNING: DATA RACE") {
		g.t.Errorf("the gateway reported a data race:\n%s", g.log.String())
	} else if g.t.Failed() {
		g.t.Logf("gateway log (last lines):\n%s", g.log.tail(150))
	}
}

// alive says whether the gateway process still runs.
func (g *gateway) alive() bool {
	select {
	case <-g.exited:
		return false
	default:
		return g.Proc.alive()
	}
}

// requireAlive fails the test at once when the gateway has exited.
func (g *gateway) requireAlive() {
	g.t.Helper()
	if !g.alive() {
		g.t.Fatalf("the gateway exited (%v)\n%s", g.exitErr, g.log.tail(80))
	}
}

// stop sends sig and waits up to d for the gateway to exit; it returns how it
// exited.
func (g *gateway) stop(sig syscall.Signal, d time.Duration) error {
	g.t.Helper()
	if err := g.cmd.Process.Signal(sig); err != nil {
		g.t.Fatalf("signal gateway: %v", err)
	}
	select {
	case <-g.exited:
		return g.exitErr
	case <-time.After(d):
		g.t.Fatalf("gateway did not exit within %s of %v\n%s", d, sig, g.log.tail(80))
		return nil
	}
}

// tree lists every process below the gateway.
func (g *gateway) tree() []proc { return descendants(g.Proc.Pid) }

// logSink keeps everything a process wrote, and wakes waiters on each write.
type logSink struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	written chan struct{}
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.written != nil {
		close(l.written)
		l.written = nil
	}
	return len(p), nil
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logSink) contains(s string) bool { return strings.Contains(l.String(), s) }

func (l *logSink) tail(n int) string {
	lines := strings.Split(l.String(), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var errExited = errors.New("process exited")

// waitFor waits until re matches the log, the process exits, or d passes.
func (l *logSink) waitFor(re *regexp.Regexp, d time.Duration, exited <-chan struct{}) ([]string, error) {
	deadline := time.After(d)
	for {
		l.mu.Lock()
		m := re.FindStringSubmatch(l.buf.String())
		if l.written == nil {
			l.written = make(chan struct{})
		}
		written := l.written
		l.mu.Unlock()
		if m != nil {
			return m, nil
		}
		select {
		case <-written:
		case <-exited:
			if m := re.FindStringSubmatch(l.String()); m != nil {
				return m, nil
			}
			return nil, errExited
		case <-deadline:
			return nil, fmt.Errorf("no %q in the log after %s", re, d)
		}
	}
}
