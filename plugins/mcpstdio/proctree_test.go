package mcpstdio_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestStopEndsWhatServerStarted checks that a server's own children (a
// shell's background job here) end with it when the plugin stops it, at a
// failed start or at Close, instead of outliving it: they would be orphans
// until the host ends the plugin's process group, and hold the server's
// stderr open, which delayed the answer by the stderr grace.
func TestStopEndsWhatServerStarted(t *testing.T) {
	t.Run("failed start", func(t *testing.T) {
		h := newHarness(t)
		job := uniqueSleep()
		began := time.Now()
		err := h.configure(map[string]any{"command": "sh", "args": []string{"-c", "sleep " + job + " & exec sleep 600"},
			"init_timeout": "300ms"})
		took := time.Since(began)
		if err == nil {
			t.Fatal("Configure succeeded")
		}
		if pids := sleepers(job); len(pids) > 0 {
			t.Errorf("the server's background job %v outlived the failed start", pids)
			killAll(pids)
		}
		// 300ms init_timeout, 500ms to take stdin EOF, the SIGTERM: well
		// under the 2s grace for stderr to end.
		if took > 2*time.Second {
			t.Errorf("Configure failed after %v; want it within 2s", took)
		}
	})
	t.Run("close", func(t *testing.T) {
		job := uniqueSleep()
		cfg := fixture(t)
		args := cfg["args"].([]string)
		cfg["args"] = []string{"-c", "sleep " + job + " & exec node \"$0\"", args[0]}
		cfg["command"] = "sh"
		h := start(t, cfg)
		if len(sleepers(job)) != 1 {
			t.Fatalf("background job sleep %s not running", job)
		}
		began := time.Now()
		if err := h.b.Close(); err != nil {
			t.Fatal(err)
		}
		took := time.Since(began)
		if pids := sleepers(job); len(pids) > 0 {
			t.Errorf("the server's background job %v outlived Close", pids)
			killAll(pids)
		}
		if took > 2*time.Second {
			t.Errorf("Close took %v; want it within 2s", took)
		}
	})
}

// uniqueSleep is a sleep duration no other process here uses, to find the
// background job by.
func uniqueSleep() string {
	return fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1_000_000)
}

// sleepers lists the live processes running `sleep arg`.
func sleepers(arg string) []int {
	want := []byte("sleep\x00" + arg + "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !bytes.Equal(cmdline, want) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(d))
		if !processGone(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func killAll(pids []int) {
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}
