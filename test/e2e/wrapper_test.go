package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// toolgateAlone links the gateway's executable into a directory of its own,
// so nothing is beside it until the test puts it there.
func toolgateAlone(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "toolgate")
	if err := os.Link(bins.toolgate, exe); err != nil {
		t.Fatalf("link toolgate: %v", err)
	}
	return exe
}

// everythingRuns starts a gateway with the everything server as an
// auto-started mcp-stdio plugin, checks that a call goes through, and
// returns the gateway and the executable its plugin process runs, read from
// the kernel (/proc/PID/exe), not from the command line it was given.
func everythingRuns(t *testing.T, toolgate string) (*gateway, string, proc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	g := startGateway(t, setup{Toolgate: toolgate, Plugins: everythingPlugin(t, "everything", true)})
	c := connectHTTP(t, g.URL)
	defer c.close()
	st := c.waitPlugin(ctx, "everything", 60*time.Second, running)
	r, err := c.callTool(ctx, "x_everything_echo", map[string]any{"message": "through the wrapper"})
	if err != nil || r.IsError || !strings.Contains(r.text(), "through the wrapper") {
		t.Fatalf("echo through the mcp-stdio plugin: %v %+v", err, r)
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", st.Pid))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := lookProc(st.Pid)
	return g, exe, p
}

// The gateway runs mcp-stdio plugins with toolgate-mcp-stdio from beside its
// own executable, found through a symbolic link to toolgate as os.Executable
// resolves it.
func TestMCPStdioRunsTheWrapperBesideToolgate(t *testing.T) {
	link := filepath.Join(t.TempDir(), "toolgate")
	if err := os.Symlink(bins.toolgate, link); err != nil {
		t.Fatal(err)
	}
	g, exe, p := everythingRuns(t, link)
	if exe != bins.mcpStdio {
		t.Errorf("the mcp-stdio plugin runs %s (%v), want %s", exe, p, bins.mcpStdio)
	}
	if g.log.contains("another build") || g.log.contains("is not beside toolgate") {
		t.Errorf("the gateway warned about a wrapper of its own build:\n%s", g.log.tail(40))
	}
}

// Without the wrapper beside it (a `go install` of toolgate alone) the
// gateway re-executes itself, and says so once.
func TestMCPStdioWithoutWrapperReExecutesToolgate(t *testing.T) {
	alone := toolgateAlone(t)
	g, exe, p := everythingRuns(t, alone)
	if exe != alone || !strings.Contains(p.Cmd, "plugin serve mcp-stdio") {
		t.Errorf("the mcp-stdio plugin runs %s (%v), want %s plugin serve mcp-stdio", exe, p, alone)
	}
	want := "toolgate-mcp-stdio is not beside toolgate"
	if n := strings.Count(g.log.String(), want); n != 1 {
		t.Errorf("the gateway said %q %d times, want once:\n%s", want, n, g.log.tail(40))
	}
}

// A wrapper left from another build beside a newer toolgate still serves,
// and the gateway warns, naming both versions and the wrapper's path.
func TestStaleWrapperIsWarnedAbout(t *testing.T) {
	alone := toolgateAlone(t)
	wrapper := filepath.Join(filepath.Dir(alone), "toolgate-mcp-stdio")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v0.9.0-stale", "-o", wrapper, "./cmd/toolgate-mcp-stdio")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the stale wrapper: %v\n%s", err, out)
	}
	g, exe, _ := everythingRuns(t, alone)
	if exe != wrapper {
		t.Errorf("the mcp-stdio plugin runs %s, want %s", exe, wrapper)
	}
	re := regexp.MustCompile(`\[WARN\] .*the mcp-stdio wrapper is from another build than toolgate.*` +
		`wrapper=` + regexp.QuoteMeta(wrapper) + ` wrapper_version=v0\.9\.0-stale toolgate_version=dev`)
	if _, err := g.log.waitFor(re, 10*time.Second, g.exited); err != nil {
		t.Errorf("no warning naming the stale wrapper: %v\n%s", err, g.log.tail(40))
	}
}
