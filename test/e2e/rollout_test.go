package e2e

import (
	"context"
	"io"
	"net/http"
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
