package e2e

import (
	"context"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listedPlugins is the plugins part of list_tools' answer.
type listedPlugins struct {
	Plugins []struct {
		Name      string `json:"name"`
		State     string `json:"state"`
		LastError string `json:"last_error"`
	} `json:"plugins"`
}

func TestPluginDiesAtStartup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "broken", true, "bogus")})
	c := connectHTTP(t, g.URL)

	start := time.Now()
	var failed string
	for failed == "" {
		var out listedPlugins
		c.meta(ctx, "list_tools", map[string]any{}, &out)
		if len(out.Plugins) != 1 || out.Plugins[0].Name != "broken" {
			t.Fatalf("list_tools plugins = %+v, want the one plugin", out.Plugins)
		}
		if p := out.Plugins[0]; p.State == "failed" {
			failed = p.LastError
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the plugin is not failed after 30s: %+v", out.Plugins)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("failed after %s: %s", time.Since(start).Round(time.Millisecond), failed)
	// What the npm server printed on its way out is the reason an operator reads.
	const stderr = "Unknown transport: bogus"
	if !strings.Contains(failed, stderr) {
		t.Errorf("list_tools last_error %q does not carry the server's stderr %q", failed, stderr)
	}
	st := c.plugin(ctx, "broken")
	if st.State != "failed" || !strings.Contains(st.LastError, stderr) || st.Pid != 0 {
		t.Errorf("core_plugin_get = %+v, want failed with %q in last_error", st, stderr)
	}
	r, err := c.callTool(ctx, "x_broken_echo", map[string]any{"message": "x"})
	if err != nil {
		t.Fatal(err)
	}
	// It never ran, so it has no tools to call; the answer still says why.
	if !r.IsError {
		t.Errorf("calling a tool of the failed plugin answered %+v", r)
	}
	if got := g.tree(); len(got) != 0 {
		t.Errorf("processes left under the gateway by the failed starts: %v", got)
	}
	g.requireAlive()
}

func TestHungPluginReplaced(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := startGateway(t, setup{Plugins: pathPlugin("tp", bins.testplugin, true)})
	c := connectHTTP(t, g.URL)
	before := findPlugin(ctx, t, g, c, "tp")

	kill(t, before.Plugin, syscall.SIGSTOP)
	stopped := time.Now()
	deadline := time.Now().Add(5 * time.Second)
	for !before.Plugin.stopped() {
		if time.Now().After(deadline) {
			t.Fatalf("%v did not stop", before.Plugin)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Calls sent to the hung process: one the gateway may retry, one it may not.
	retried := c.startTool("x_tp_echo", map[string]any{"text": "survives the hang"}, 40*time.Second)
	lost := c.startTool("x_tp_sleep", map[string]any{"ms": 100}, 40*time.Second)

	after := c.waitPlugin(ctx, "tp", 30*time.Second, func(st pluginStatus) bool { return running(st) && st.Pid != before.Plugin.Pid })
	took := time.Since(stopped)
	t.Logf("hung plugin replaced %s after SIGSTOP (pid %d → %d)", took.Round(time.Millisecond), before.Plugin.Pid, after.Pid)
	// Three missed pings, every 3s with a 2s timeout.
	if took < 6*time.Second || took > 16*time.Second {
		t.Errorf("the hang was acted on %s after it began, want after three missed 3s pings (6-16s)", took)
	}
	if before.Plugin.alive() {
		t.Errorf("the hung process %v is still there", before.Plugin)
	}

	r, err := lost.waitResult(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsError || !strings.Contains(r.text(), `plugin "tp" crashed (killed by signal SIGKILL)`) {
		t.Errorf("the call stuck in the hung plugin answered %+v, want an isError saying it was killed", r)
	}
	if r, err := retried.waitResult(ctx); err != nil || r.IsError || r.text() != "survives the hang" {
		t.Errorf("the read-only call stuck in the hung plugin answered %+v, %v; want it retried on the new process", r, err)
	}
	var events struct {
		Events []struct {
			From, To, Reason string
		} `json:"events"`
	}
	c.meta(ctx, "call_tool", map[string]any{"name": "core_events", "arguments": map[string]any{"plugin": "tp"}}, &events)
	const why = "plugin stopped answering health pings (3 missed); killed"
	if !slices.ContainsFunc(events.Events, func(e struct{ From, To, Reason string }) bool {
		return e.From == "running" && e.To == "restarting" && strings.HasPrefix(e.Reason, why)
	}) {
		t.Errorf("core_events %+v has no move to restarting because %q", events.Events, why)
	}
	if r, err := c.callTool(ctx, "x_tp_echo", map[string]any{"text": "after"}); err != nil || r.IsError || r.text() != "after" {
		t.Errorf("a call after the replacement answered %+v, %v", r, err)
	}
	// The log says why the process was killed, not that it stopped as asked.
	if !g.log.contains("plugin process killed: it stopped answering health pings (3 missed)") || g.log.contains("plugin process stopped as asked") {
		t.Errorf("the gateway's log does not say the hung process was killed for its missed pings:\n%s", g.log.tail(40))
	}
	g.requireAlive()
}
