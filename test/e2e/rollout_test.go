package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// probeStatus is one probe of a gateway, with the odd Host header a kubelet
// probe carries (the pod IP) and no token.
func probeStatus(t *testing.T, g *gateway, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(g.URL, "/mcp")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "10.244.0.17:8700"
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// waitProbe polls path until it answers want.
func waitProbe(t *testing.T, g *gateway, path string, want int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		status, _ := probeStatus(t, g, path)
		if status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still answers %d after %s, want %d\n%s", path, status, d, want, g.log.tail(40))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReadinessFollowsAutoStartPlugins: a gateway whose auto_start plugin
// cannot start is alive but not ready, and says nothing about why to an
// unauthenticated prober.
func TestReadinessFollowsAutoStartPlugins(t *testing.T) {
	g := startGateway(t, setup{Plugins: `plugin "tp" {
  path       = "` + bins.testplugin + `"
  auto_start = true
  env        = { TESTPLUGIN_DIE_AT_START = "1" }
}
`})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := connectHTTP(t, g.URL)
	c.waitPlugin(ctx, "tp", 30*time.Second, func(st pluginStatus) bool { return st.State == "failed" })
	status, body := probeStatus(t, g, "/readyz")
	if status != http.StatusServiceUnavailable || body != "unavailable\n" {
		t.Errorf("/readyz with the auto_start plugin failed = %d %q, want 503 %q", status, body, "unavailable\n")
	}
	if status, body := probeStatus(t, g, "/healthz"); status != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz = %d %q, want 200 %q", status, body, "ok\n")
	}
	if !g.log.contains(`reason="auto_start plugin \"tp\" is`) {
		t.Errorf("the log does not say which plugin keeps the gateway unready:\n%s", g.log.tail(40))
	}
}

// TestSIGTERMFailsReadinessThenDrains is a rolling update seen from one
// replica: SIGTERM arrives while a slow call runs; /readyz turns 503 at once
// while the listener still serves, the call completes, then the gateway exits.
func TestSIGTERMFailsReadinessThenDrains(t *testing.T) {
	g := startGateway(t, setup{
		Plugins: pathPlugin("tp", bins.testplugin, true),
		Gateway: `  shutdown_grace = "20s"`,
	})
	waitProbe(t, g, "/readyz", http.StatusOK, 30*time.Second)

	c := connectHTTP(t, g.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	slow := c.startTool("x_tp_sleep", map[string]any{"ms": 3000}, 30*time.Second)
	select {
	case <-slow.Progress: // the call is running in the plugin
	case <-ctx.Done():
		t.Fatal("the slow call reported no progress")
	}

	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	waitProbe(t, g, "/readyz", http.StatusServiceUnavailable, time.Second)
	t.Logf("/readyz answered 503 %s after SIGTERM", time.Since(signalled).Round(time.Millisecond))
	if status, _ := probeStatus(t, g, "/healthz"); status != http.StatusOK {
		t.Errorf("/healthz while draining = %d, want 200", status)
	}

	r, err := slow.waitResult(ctx)
	if err != nil {
		t.Fatalf("the call in flight at SIGTERM failed: %v", err)
	}
	if r.IsError || r.text() != "slept" {
		t.Errorf("the call in flight at SIGTERM answered %+v, want its result", r)
	}
	took := time.Since(signalled)
	select {
	case <-g.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("the gateway did not exit after the drain\n%s", g.log.tail(40))
	}
	if g.exitErr != nil {
		t.Errorf("the gateway exited with %v, want 0", g.exitErr)
	}
	if took < 2*time.Second {
		t.Errorf("the call ended %s after SIGTERM, before its 3s sleep could", took)
	}
}

// TestSIGTERMAnswersCallsWaitingForAStart: a call that waits for a lazy
// plugin to start when SIGTERM arrives is answered then, with an error that
// names the plugin and says the gateway is shutting down, not at the end of
// the grace given to calls in flight; the start is abandoned and its process
// is gone.
func TestSIGTERMAnswersCallsWaitingForAStart(t *testing.T) {
	hang := filepath.Join(t.TempDir(), "hang")
	g := startGateway(t, setup{
		Plugins: `plugin "tp" {
  path          = "` + bins.testplugin + `"
  auto_start    = false
  idle_timeout  = "1s"
  start_timeout = "10m"
  env           = { TESTPLUGIN_HANG_CONFIGURE_FILE = "` + hang + `" }
}
`,
		Gateway: `  shutdown_grace = "10m"`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := connectHTTP(t, g.URL)
	// Started once at boot to learn its tools, then stopped while idle: the
	// call below is what starts it, and its start hangs.
	c.waitPlugin(ctx, "tp", 30*time.Second, func(st pluginStatus) bool { return st.State == "lazy" && st.Tools > 0 })
	if err := os.WriteFile(hang, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waiting := c.startTool("x_tp_echo", map[string]any{"text": "a"}, 10*time.Minute)
	m, err := g.log.waitFor(regexp.MustCompile(`pid (\d+) hanging in configure`), 30*time.Second, g.exited)
	if err != nil {
		t.Fatalf("the call did not start the plugin: %v\n%s", err, g.log.tail(40))
	}
	pid, _ := strconv.Atoi(m[1])
	starting, ok := lookProc(pid)
	if !ok {
		t.Fatalf("plugin process %d, hanging in its start, is not there", pid)
	}

	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Bounded far below the 10m grace: only an answer that waited for the
	// grace fails this.
	r, err := waiting.waitResult(ctx)
	if err != nil {
		t.Fatalf("the call waiting for the start got no answer after SIGTERM: %v\n%s", err, g.log.tail(40))
	}
	want := `plugin "tp" is stopping: the gateway is shutting down, so its start was abandoned`
	if !r.IsError || !strings.Contains(r.text(), want) {
		t.Errorf("the call waiting for the start answered %+v, want an error saying %q", r, want)
	}
	select {
	case <-g.exited:
	case <-ctx.Done():
		t.Fatalf("the gateway did not exit once the waiting call was answered\n%s", g.log.tail(40))
	}
	if g.exitErr != nil {
		t.Errorf("the gateway exited with %v, want 0", g.exitErr)
	}
	if starting.alive() {
		t.Errorf("the plugin process whose start was abandoned outlived the gateway: %v", starting)
	}
	if !g.log.contains("plugin process stopped as asked: pid=" + m[1]) {
		t.Errorf("the log does not say the starting plugin was stopped as asked\n%s", g.log.tail(40))
	}
}
