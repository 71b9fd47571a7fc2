package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tools of server-everything that ask their client something, and two
// that do not.
var askingTools = []string{"echo", "trigger-long-running-operation",
	"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"}

// clientKind is one real client of the tests of server-to-client requests.
type clientKind struct {
	name    string // also the tag it puts in its answers
	version string // the protocol version it must end up speaking
}

var clientKinds = []clientKind{
	{"ts", "2025-11-25"},        // the TypeScript SDK client: initialize, answers on the call's stream
	{"go", "2026-07-28"},        // the Go SDK client at its newest: input-required results and retries
	{"go-legacy", "2025-11-25"}, // the Go SDK client asking for the older version
}

// connectKind connects the client of kind k over tr (TypeScript: the flags and
// "http URL" / "stdio CMD..." of client-requests.mjs; Go: its transport).
func connectKind(t *testing.T, k clientKind, ts []string, tr goTransport) asker {
	t.Helper()
	if k.name == "ts" {
		return connectTS(t, append([]string{"--tag", k.name}, ts...)...)
	}
	version := ""
	if k.name == "go-legacy" {
		version = k.version
	}
	return goAsker{connectGo(t, tr, goClientOptions{version: version, tag: k.name})}
}

// askingPlugin is server-everything for one client, which hears that
// client's roots changes (forward_roots_changed: checkRootsChanged).
func askingPlugin(t *testing.T, name string) string {
	return strings.Replace(everythingPlugin(t, name, true), "  config {\n", "  config {\n    forward_roots_changed = true\n", 1)
}

// TestClientRequests: a backend behind the gateway — server-everything run by
// the mcp-stdio plugin — asks the client that called it for sampling,
// elicitation and roots, and the tool's result is made of what that client
// answered. Each real client is tried over HTTP, over stdio and through
// `toolgate bridge`. Each client gets a server of its own: server-everything
// asks for roots once and keeps them.
func TestClientRequests(t *testing.T) {
	var plugins strings.Builder
	for _, via := range []string{"http", "bridge"} {
		for _, k := range clientKinds {
			plugins.WriteString(askingPlugin(t, via+"-"+k.name))
		}
	}
	plugins.WriteString(everythingPlugin(t, "http-plain", true))
	g := startGateway(t, setup{Plugins: plugins.String()})

	for _, k := range clientKinds {
		t.Run("http/"+k.name, func(t *testing.T) {
			c := connectKind(t, k, []string{"http", g.URL}, goTransport{url: g.URL})
			checkAsking(t, k, c, "http-"+k.name)
		})
	}
	for _, k := range clientKinds {
		t.Run("stdio/"+k.name, func(t *testing.T) {
			cfg, _ := writeConfig(t, setup{Plugins: askingPlugin(t, "stdio-"+k.name)})
			serve := []string{"serve", "--stdio", "--config", cfg}
			c := connectKind(t, k, append([]string{"stdio", bins.toolgate}, serve...), goTransport{args: serve})
			checkAsking(t, k, c, "stdio-"+k.name)
		})
	}
	for _, k := range clientKinds {
		t.Run("bridge/"+k.name, func(t *testing.T) {
			bridge := []string{"bridge", "--url", g.URL}
			c := connectKind(t, k, append([]string{"stdio", bins.toolgate}, bridge...), goTransport{args: bridge})
			checkAsking(t, k, c, "bridge-"+k.name)
		})
	}
	t.Run("clients without the capability", func(t *testing.T) { checkNoCapability(t, g) })
	t.Run("client that never answers", func(t *testing.T) { checkSilentClient(t, g) })
	g.requireAlive()
}

// checkAsking runs the client through the gateway to plugin's server: the
// version it speaks, the meta-tools, a plain call, then each tool that asks
// the client, whose result must hold what this client answered.
func checkAsking(t *testing.T, k clientKind, c asker, plugin string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if v, err := c.protocolVersion(ctx); err != nil || v != k.version {
		t.Fatalf("negotiated %q (%v), want %s", v, err, k.version)
	}
	names, err := c.toolNames(ctx)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if slices.Sort(names); !slices.Equal(names, metaTools) {
		t.Errorf("tools/list = %v, want the 11 meta-tools %v", names, metaTools)
	}
	waitTools(t, c, plugin, askingTools...)
	run := func(tool string, args map[string]any, wants ...string) {
		t.Helper()
		start := time.Now()
		text, isError, err := callTool(ctx, c, xTool(plugin, tool), args)
		if err != nil {
			t.Fatalf("call_tool %s: %v", tool, err)
		}
		if w := lacks(text, wants...); isError || w != "" {
			t.Errorf("call_tool %s (isError %v) = %q\nwant it to contain %q", tool, isError, text, w)
		}
		t.Logf("%s answered in %s", tool, time.Since(start).Round(time.Millisecond))
	}
	run("echo", map[string]any{"message": "hello " + k.name}, "Echo: hello "+k.name)
	prompt := "a haiku for " + k.name
	run("trigger-sampling-request", map[string]any{"prompt": prompt, "maxTokens": 20},
		fmt.Sprintf(`%s sampled <Resource trigger-sampling-request context: %s>`, k.name, prompt), `"model": "`+k.name+`-model"`)
	run("trigger-elicitation-request", map[string]any{}, "- Name: "+k.name+" Ada Lovelace", "- Email: ada@example.com")
	run("get-roots-list", map[string]any{}, "URI: file:///"+k.name+"/project")
	checkTransport(ctx, t, k, c)
	if k.version == "2025-11-25" {
		checkRootsChanged(ctx, t, k, c, plugin)
	}
}

// checkTransport checks how the requests travelled: on 2025-11-25 as JSON-RPC
// requests to the client; on 2026-07-28 as input-required results the client
// answered by calling again.
func checkTransport(ctx context.Context, t *testing.T, k clientKind, c asker) {
	t.Helper()
	methods := []string{"sampling/createMessage", "elicitation/create", "roots/list"}
	switch c := c.(type) {
	case tsAsker:
		seen, err := c.seen(ctx)
		if err != nil {
			t.Fatalf("what the client saw: %v", err)
		}
		for _, m := range methods {
			// server-everything also asks for roots by itself once it is
			// initialized; when that lands during a call, the call's client
			// is asked, so roots/list may come twice.
			if n := seen.asked(m); n != 1 && !(m == "roots/list" && n == 2) {
				t.Errorf("the client got %d %s requests; want 1", n, m)
			}
		}
	case goAsker:
		inputRequired := c.count("read: ", `"resultType":"input_required"`)
		retries := c.count("write: ", `"method":"tools/call"`, `"inputResponses"`, `"requestState"`)
		asked := map[string]int{}
		for _, m := range methods {
			// (an input-required result names the methods too, in inputRequests)
			asked[m] = c.count("read: ", `"method":"`+m+`"`) - c.count("read: ", `"method":"`+m+`"`, `"resultType":"input_required"`)
		}
		// server-everything's own start-up request for roots, when it lands
		// during a call, is one more roots request of that call's client.
		rootsRequired := c.count("read: ", `"resultType":"input_required"`, `"method":"roots/list"`)
		if k.version == "2026-07-28" {
			extra := rootsRequired - 1
			if inputRequired-extra != 3 || (extra != 0 && extra != 1) || retries != inputRequired || asked[methods[0]]+asked[methods[1]]+asked[methods[2]] != 0 {
				t.Errorf("got %d input-required results (%d for roots), %d retries with inputResponses and JSON-RPC requests %v; want 3 (or 4 with a second for roots), as many retries, none\n%s",
					inputRequired, rootsRequired, retries, asked, c.wire.tail(40))
			}
		} else if inputRequired != 0 || retries != 0 || asked[methods[0]] != 1 || asked[methods[1]] != 1 || (asked[methods[2]] != 1 && asked[methods[2]] != 2) {
			t.Errorf("got %d input-required results, %d retries with inputResponses and JSON-RPC requests %v; want 0, 0, one each (roots/list maybe twice)\n%s",
				inputRequired, retries, asked, c.wire.tail(40))
		}
		if c.sampled.Load() != 1 || c.elicited.Load() != 1 {
			t.Errorf("the client sampled %d and elicited %d times; want once each", c.sampled.Load(), c.elicited.Load())
		}
	}
}

// checkRootsChanged: the client's notifications/roots/list_changed reaches
// the server, which asks for the roots again. server-everything asks at once,
// and only the client of a call in progress can be asked (see
// docs/plugins/mcp-stdio.md), so the roots change while a long call runs: the
// server gets the new roots from that call's client, and get-roots-list shows
// them afterwards.
func checkRootsChanged(ctx context.Context, t *testing.T, k clientKind, c asker, plugin string) {
	t.Helper()
	changed := "file:///" + k.name + "/changed"
	var setErr error
	text, isError, err := c.callWhile(ctx, xTool(plugin, "trigger-long-running-operation"), map[string]any{"duration": 2, "steps": 4},
		func() { setErr = c.setRoots(ctx, changed) })
	if err != nil || isError || setErr != nil {
		t.Fatalf("long call while the roots change: %q (isError %v), %v; set roots: %v", text, isError, err, setErr)
	}
	text, _, err = callTool(ctx, c, xTool(plugin, "get-roots-list"), map[string]any{})
	if err != nil || !strings.Contains(text, "URI: "+changed) {
		t.Errorf("after notifications/roots/list_changed, get-roots-list = %q (%v); want the new root %s", text, err, changed)
	}
}
