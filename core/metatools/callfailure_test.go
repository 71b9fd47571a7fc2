package metatools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
)

// A call cut by an operator's stop is reported as that stop, without the
// generic "failed in plugin" prefix a fault gets.
func TestCallCutByStopSaysWhy(t *testing.T) {
	h := &Handlers{}
	tool := &catalog.Tool{ID: "x_p_slow", Plugin: "p"}
	stop := &supervisor.StoppedError{Plugin: "p", Tool: "slow", Reason: "stopped by an operator"}
	res, outcome := h.callFailure(context.Background(), context.Background(), tool, 0, fmt.Errorf("call: %w", stop))
	if outcome != OutcomeUnavailable {
		t.Fatalf("outcome = %q, want %q", outcome, OutcomeUnavailable)
	}
	text := res.Content[0].Text
	if !res.IsError || !strings.Contains(text, "stopped by an operator") || strings.Contains(text, "failed in plugin") {
		t.Fatalf("result = %+v, want an isError naming the operator's stop", res)
	}
}

// A plugin's error of megabytes (an MCP server's JSON-RPC error passed on,
// say) comes back cut, still naming the plugin and how long it was.
func TestCallFailureClipsThePluginsMessage(t *testing.T) {
	h := &Handlers{}
	tool := &catalog.Tool{ID: "x_p_t", Plugin: "p"}
	huge := strings.Repeat("x", 3<<20)
	res, outcome := h.callFailure(context.Background(), context.Background(), tool, 0, fmt.Errorf("server said: %s", huge))
	if outcome != OutcomeError {
		t.Fatalf("outcome = %q, want %q", outcome, OutcomeError)
	}
	text := res.Content[0].Text
	if len(text) > 2000 || !strings.Contains(text, `plugin "p"`) || !strings.Contains(text, "bytes in all") {
		t.Fatalf("result text is %d bytes (%.120q…), want it cut, naming the plugin", len(text), text)
	}
}
