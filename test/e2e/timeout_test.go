package e2e

import (
	"context"
	"testing"
	"time"
)

// TestCallToolTimeoutIsBounded runs call_tool through the TypeScript SDK
// client against a gateway whose max_call_timeout is 10s: a timeout_seconds
// out of range is refused before the call, saying the range and the setting.
func TestCallToolTimeoutIsBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true), Gateway: `  max_call_timeout = "10s"`})
	c := connectHTTP(t, g.URL)
	c.waitPlugin(ctx, "everything", 30*time.Second, running)
	const rangeText = `call_tool: argument "timeout_seconds": must be from 0.001 to 10 seconds (the gateway's max_call_timeout is 10s); `
	for _, tc := range []struct {
		seconds float64
		want    string
	}{
		{1e300, rangeText + "got 1e+300"},
		{-1e300, rangeText + "got -1e+300"},
		{10.5, rangeText + "got 10.5"},
		{0, rangeText + "got 0"},
		{9.5, "Echo: in range"},
	} {
		r, err := c.call(ctx, "call_tool", map[string]any{
			"name": "x_everything_echo", "arguments": map[string]any{"message": "in range"}, "timeout_seconds": tc.seconds})
		if err != nil {
			t.Fatalf("timeout_seconds %g: %v", tc.seconds, err)
		}
		if r.text() != tc.want || r.IsError != (tc.want != "Echo: in range") {
			t.Errorf("timeout_seconds %g: got %q (isError %v), want %q", tc.seconds, r.text(), r.IsError, tc.want)
		}
	}
	g.requireAlive()
}
