package testparts

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RunNodeJSON runs `node script args...` with env added to the test's
// environment, and decodes the one JSON value the script prints into out.
// The test fails, with the script's stderr, when node is missing, the script
// fails or outlives timeout, or what it prints is not that value. The script
// dies with the test process, so a test killed halfway leaves no orphan.
func RunNodeJSON(t testing.TB, timeout time.Duration, out any, env []string, script string, args ...string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
		return
	}
	what := strings.Join(append([]string{filepath.Base(script)}, args...), " ")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = append(cmd.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstderr:\n%s", what, err, stderr.String())
		return
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("node %s: output: %v\n%s\nstderr:\n%s", what, err, stdout.String(), stderr.String())
	}
}
