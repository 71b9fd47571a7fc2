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
