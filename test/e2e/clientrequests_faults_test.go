package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// checkNoCapability: a client that declared neither sampling, elicitation nor
// roots calls the tools that need them. It is never asked; the call ends at
// once, and what the user sees names what the client lacks.
func checkNoCapability(t *testing.T, g *gateway) {
	const plugin = "http-plain"
	for _, k := range []struct {
		name    string
		connect func(t *testing.T) asker
	}{
		{"ts 2025-11-25", func(t *testing.T) asker { return connectTS(t, "--no-capabilities", "--tag", "plain", "http", g.URL) }},
		{"go 2026-07-28", func(t *testing.T) asker {
			return goAsker{connectGo(t, goTransport{url: g.URL}, goClientOptions{tag: "plain", noCapabilities: true})}
		}},
	} {
		t.Run(k.name, func(t *testing.T) {
			c := k.connect(t)
			waitTools(t, c, plugin, askingTools...)
			for _, tc := range []struct{ tool, want string }{
				{"trigger-sampling-request", `does not support sampling (it did not declare the "sampling" capability)`},
				{"trigger-elicitation-request", `does not support elicitation (it did not declare the "elicitation" capability)`},
			} {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				start := time.Now()
				text, isError, err := callTool(ctx, c, xTool(plugin, tc.tool), map[string]any{"prompt": "x"})
				cancel()
				took := time.Since(start)
				if err != nil {
					t.Fatalf("%s: %v (after %s)", tc.tool, err, took.Round(time.Millisecond))
				}
				if !isError || !strings.Contains(text, tc.want) {
					t.Errorf("%s = %q (isError %v); want an error result saying %q", tc.tool, text, isError, tc.want)
				}
				if took > 5*time.Second {
					t.Errorf("%s took %s; a client that cannot be asked must get its answer at once", tc.tool, took)
				}
			}
			// server-everything keeps a failed roots request to itself and
			// answers that it has no roots; the reason is in its stderr, which
			// is the gateway's log.
			before := strings.Count(g.log.String(), "the calling client does not support roots")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			text, _, err := callTool(ctx, c, xTool(plugin, "get-roots-list"), map[string]any{})
			if err != nil || !strings.Contains(text, "no roots are currently configured") {
				t.Errorf("get-roots-list = %q (%v); want server-everything's answer for a client with no roots", text, err)
			}
			// The stderr line travels apart from the call's answer (server,
			// wrapper, gateway log) and may land a moment after it.
			refused := func() bool {
				return strings.Count(g.log.String(), "the calling client does not support roots") > before
			}
			for deadline := time.Now().Add(10 * time.Second); !refused() && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
			}
			if !refused() {
				t.Errorf("the server's roots request was not refused for want of the roots capability; gateway log:\n%s", g.log.tail(30))
			}
		})
	}
}

// checkSilentClient: a client takes a sampling request and never answers.
// The call ends at its timeout with an error that says so, the client is told
// the request is off, the gateway stays healthy, and the same server then
// serves the next calls, another client's sampling included.
func checkSilentClient(t *testing.T, g *gateway) {
	const plugin = "http-plain"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	silent := connectTS(t, "--silent-sampling", "--tag", "silent", "http", g.URL)
	waitTools(t, silent, plugin, askingTools...)

	start := time.Now()
	text, isError, err := silent.call(ctx, "call_tool", map[string]any{"name": xTool(plugin, "trigger-sampling-request"),
		"arguments": map[string]any{"prompt": "never answered"}, "timeout_seconds": 2})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("call_tool: %v", err)
	}
	t.Logf("the unanswered call ended after %s: %q", took.Round(time.Millisecond), text)
	if !isError || lacks(text, plugin, "2s") != "" {
		t.Errorf("call_tool = %q (isError %v); want an error result naming the plugin and its 2s timeout", text, isError)
	}
	if took < 2*time.Second || took > 6*time.Second {
		t.Errorf("the call ended after %s; want its 2s timeout", took)
	}
	seen, err := silent.seen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := seen.asked("sampling/createMessage"); n != 1 {
		t.Errorf("the client got %d sampling requests; want 1", n)
	}
	if st, body := probeStatus(t, g, "/healthz"); st != http.StatusOK {
		t.Errorf("/healthz = %d %s after the unanswered call", st, body)
	}

	text, isError, err = callTool(ctx, silent, xTool(plugin, "echo"), map[string]any{"message": "still here"})
	if err != nil || isError || text != "Echo: still here" {
		t.Errorf("the next call: %q (isError %v), %v", text, isError, err)
	}
	other := goAsker{connectGo(t, goTransport{url: g.URL}, goClientOptions{version: "2025-11-25", tag: "next"})}
	text, isError, err = callTool(ctx, other, xTool(plugin, "trigger-sampling-request"), map[string]any{"prompt": "after the silence"})
	if err != nil || isError || !strings.Contains(text, "next sampled <Resource trigger-sampling-request context: after the silence>") {
		t.Errorf("another client's sampling on the same server: %q (isError %v), %v", text, isError, err)
	}
	g.requireAlive()
}
