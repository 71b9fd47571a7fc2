package e2e

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"
)

// filterNames runs filter_tools and returns the names it found.
func filterNames(ctx context.Context, c *mcpClient, args map[string]any) []string {
	var out struct {
		Tools []struct {
			Name  string `json:"name"`
			State string `json:"state"`
		} `json:"tools"`
	}
	c.meta(ctx, "filter_tools", args, &out)
	names := make([]string, len(out.Tools))
	for i, tool := range out.Tools {
		names[i] = tool.Name
	}
	return names
}

// helloProcs lists the hello plugin processes under the gateway.
func helloProcs(g *gateway) []proc {
	var out []proc
	for _, p := range g.tree() {
		if strings.Contains(p.Cmd, bins.hello) {
			out = append(out, p)
		}
	}
	return out
}

func TestLazyPluginFromStoredManifest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	plugins := pathPlugin("hello", bins.hello, false)

	// First run: no manifest yet, so the gateway starts hello once to learn it.
	first := startGateway(t, setup{Plugins: plugins})
	c := connectHTTP(t, first.URL)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if names := filterNames(ctx, c, map[string]any{"query": "greet"}); len(names) > 0 && names[0] == "x_hello_greet" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run never learned the hello plugin's tools")
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.close()
	if err := first.stop(syscall.SIGTERM, 20*time.Second); err != nil {
		t.Fatalf("first gateway exited with %v", err)
	}

	// Second run, same state dir: searchable at once, nothing started.
	second := startGateway(t, setup{Plugins: plugins, StateDir: first.StateDir})
	c = connectHTTP(t, second.URL)
	if names := filterNames(ctx, c, map[string]any{"query": "greet"}); len(names) == 0 || names[0] != "x_hello_greet" {
		t.Fatalf("filter_tools {query: greet} = %v on the second run, want x_hello_greet first from the stored manifest", names)
	}
	var described struct {
		Name string `json:"name"`
	}
	c.meta(ctx, "describe_tool", map[string]any{"name": "x_hello_greet"}, &described)
	if described.Name != "x_hello_greet" {
		t.Errorf("describe_tool answered %+v", described)
	}
	if st := c.plugin(ctx, "hello"); st.State != "lazy" || st.Pid != 0 {
		t.Errorf("core_plugin_get = %+v, want lazy with no process", st)
	}
	time.Sleep(500 * time.Millisecond) // a background start would show by now
	if ps := helloProcs(second); len(ps) != 0 {
		t.Fatalf("searching started the lazy plugin: %v", ps)
	}
	if tree := second.tree(); len(tree) != 0 {
		t.Fatalf("processes under the gateway before any call: %v", tree)
	}

	// Calling it starts it.
	r, err := c.callTool(ctx, "x_hello_greet", map[string]any{"name": "Ada"})
	if err != nil || r.IsError || !strings.Contains(r.text(), "Ada") {
		t.Fatalf("calling x_hello_greet answered %+v, %v", r, err)
	}
	t.Logf("x_hello_greet answered %q", r.text())
	ps := helloProcs(second)
	if len(ps) != 1 {
		t.Fatalf("want one hello process under the gateway after the call, got %v", second.tree())
	}
	if st := c.plugin(ctx, "hello"); st.State != "running" || st.Pid != ps[0].Pid {
		t.Errorf("core_plugin_get = %+v, want running as pid %d", st, ps[0].Pid)
	}
}
