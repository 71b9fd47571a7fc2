package gateway

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Only progress holds a stdio result back: the TypeScript client drops
// progress that shares a read with its result, never log messages.
func TestSettleOnlyAfterProgress(t *testing.T) {
	for _, tc := range []struct {
		method string
		delays bool
	}{
		{string(mcp.MethodNotificationMessage), false},
		{string(mcp.MethodNotificationProgress), true},
	} {
		t.Run(tc.method, func(t *testing.T) {
			cs := &callStream{w: &lineWriter{w: io.Discard, fail: func(error) {}}}
			if err := cs.send(rpcNotification{JSONRPC: mcp.JSONRPC_VERSION, Method: tc.method, Params: map[string]any{}}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cs.settle(context.Background())
			waited := time.Since(start) >= SettleDelay/2
			if waited != tc.delays {
				t.Errorf("after %s, settle waited %s; want a delay: %v", tc.method, time.Since(start), tc.delays)
			}
		})
	}
}
