package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// An operator who raises max_request_bytes past gRPC's default message size
// gets calls that large through to the plugin and their results back, not a
// bare "received message larger than max" from the plugin connection.
func TestCallLargerThanGRPCDefaultMessage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	g := startGateway(t, setup{Gateway: "max_request_bytes = 16777216", Plugins: pathPlugin("hello", bins.hello, true)})
	c := connectHTTP(t, g.URL)
	c.waitPlugin(ctx, "hello", 30*time.Second, running)
	text := strings.Repeat("x", 6<<20)
	r, err := c.callTool(ctx, "x_hello_echo", map[string]any{"text": text})
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError || r.text() != text {
		got := r.text()
		t.Fatalf("echo of %d bytes: isError %v, %d bytes back (%.200s)", len(text), r.IsError, len(got), got)
	}
}
