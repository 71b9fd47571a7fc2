package bridge

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/core/client/gatewaytest"
)

// TestGoSDKClientThroughBridge: the official Go SDK client runs `toolgate
// bridge` as its stdio server and speaks 2026-07-28 through it, and
// 2025-11-25 when it asks for that.
func TestGoSDKClientThroughBridge(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))
	for _, version := range []string{"", "2025-11-25"} {
		want := version
		if want == "" {
			want = "2026-07-28"
		}
		t.Run(want, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.Command(bins.Toolgate, "bridge", "--url", gw.URL)
			cmd.Stderr = os.Stderr
			c := gomcp.NewClient(&gomcp.Implementation{Name: "go-sdk-bridge-test", Version: "1.0.0"}, nil)
			cs, err := c.Connect(ctx, &gomcp.CommandTransport{Command: cmd}, &gomcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect through the bridge: %v", err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != want {
				t.Fatalf("negotiated %q, want %q", got, want)
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil || len(list.Tools) != 11 || list.Tools[0].Name != "list_tools" {
				t.Fatalf("tools/list: %v, %+v", err, list)
			}
			res, err := cs.CallTool(ctx, &gomcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{
				"name": "x_hello_greet", "arguments": map[string]any{"name": "Ada"}}})
			if err != nil {
				t.Fatalf("call_tool: %v", err)
			}
			if res.IsError || len(res.Content) != 1 || res.Content[0].(*gomcp.TextContent).Text != "Hello, Ada!" {
				t.Errorf("call_tool x_hello_greet: %+v", res)
			}
		})
	}
}
