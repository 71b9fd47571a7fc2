package prometheus

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// manySeries is a data set big enough that reading its series takes
// Prometheus longer than a millisecond.
func manySeries(n int) string {
	var b strings.Builder
	b.WriteString("# HELP many A gauge with many series.\n# TYPE many gauge\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "many{id=\"s%05d\"} %d %d\n", i, i, t0)
	}
	b.WriteString("# EOF\n")
	return b.String()
}

// ownProm starts a Prometheus for one test, holding data (OpenMetrics, may be
// empty) and run with extra flags.
func ownProm(t *testing.T, data string, extra ...string) *promServer {
	t.Helper()
	prom, promtool := testparts.Prometheus(t)
	dir := t.TempDir()
	tsdb := filepath.Join(dir, "tsdb")
	if data != "" {
		file := filepath.Join(dir, "data.om")
		if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", file, tsdb).CombinedOutput(); err != nil {
			t.Fatalf("promtool create-blocks-from: %v\n%s", err, out)
		}
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := startPrometheus(prom, dir, "http", addr, "scrape_configs: []\n", tsdb, extra...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	return srv
}

// Prometheus' own query timeout comes back with HTTP 503, or as "execution:
// expanding series: context deadline exceeded" when it strikes while series
// are read; either is a timeout, with Prometheus' words and the advice to
// narrow the query.
func TestPrometheusQueryTimeoutIsATimeout(t *testing.T) {
	t.Parallel()
	srv := ownProm(t, manySeries(5000), "--query.timeout=1ms")
	b := serve(t, map[string]any{"url": srv.url})
	// A subquery over a thousand series runs for far longer than 1ms, and
	// Prometheus checks its deadline at every step of it.
	query := `count(max_over_time({__name__=~"many.*", id=~".*9.*"}[10m:1s]))`
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"query", map[string]any{"query": query, "time": at(0)}},
		{"query_range", map[string]any{"query": query, "start": at(-300), "end": at(300)}},
	} {
		text, te := failed(t, b, tc.tool, tc.args)
		if te.Kind != "timeout" || te.ErrorType == "" {
			t.Fatalf("%s: error = %+v\n%s", tc.tool, te, text)
		}
		mustContain(t, text, "Prometheus at "+srv.url+" gave up on the query ("+te.ErrorType+": ",
			"--query.timeout", "Narrow the query")
	}
}

// A Prometheus frozen mid-call (SIGSTOP) accepts connections and says
// nothing. The call ends at the plugin's timeout saying so, and the same
// plugin answers again once the server runs again.
func TestFrozenPrometheusTimesOutAndRecovers(t *testing.T) {
	t.Parallel()
	srv := ownProm(t, "")
	b := serve(t, map[string]any{"url": srv.url, "timeout": "1s"})
	ok(t, b, "tsdb_status", nil, nil)

	pid := srv.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)
	// kill returns before every thread has stopped; one still running could
	// answer the first call.
	eventually(t, 15*time.Second, func() error { return allStopped(pid) })
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		narrow bool
	}{
		{"targets", nil, false},
		{"tsdb_status", nil, false},
		{"query", map[string]any{"query": "up"}, true},
	} {
		text, te := failed(t, b, tc.tool, tc.args)
		if te.Kind != "timeout" {
			t.Fatalf("%s: error = %+v", tc.tool, te)
		}
		mustContain(t, text, "Prometheus at "+srv.url+" did not answer within 1s, the plugin's timeout",
			"overloaded, stuck or paused")
		if got := strings.Contains(text, "narrow it"); got != tc.narrow {
			t.Errorf("%s: advice to narrow a query = %v, want %v:\n%s", tc.tool, got, tc.narrow, text)
		}
	}

	// A restart cannot bring Prometheus back, so the plugin stays healthy
	// to the gateway's pings while Prometheus is away.
	if hc, isChecker := b.(protov1.HealthChecker); isChecker {
		if err := hc.Health(context.Background()); err != nil {
			t.Errorf("health while Prometheus is frozen: %v", err)
		}
	}

	resume()
	eventually(t, 15*time.Second, func() error {
		if res := call(t, b, "targets", nil); res.IsError {
			return fmt.Errorf("%w: %s", errNotYet, resultText(res))
		}
		return nil
	})
}

// allStopped checks every thread of process pid is stopped by a signal.
func allStopped(pid int) error {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return fmt.Errorf("threads of %d: %v", pid, err)
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(task)
		if err != nil {
			return err
		}
		// The state follows the command name, which is in parentheses.
		rest := stat[strings.LastIndexByte(string(stat), ')')+1:]
		if state := strings.TrimSpace(string(rest)); !strings.HasPrefix(state, "T") && !strings.HasPrefix(state, "t") {
			return fmt.Errorf("%w: %s is in state %.1s", errNotYet, task, state)
		}
	}
	return nil
}
