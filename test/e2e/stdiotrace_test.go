package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/testparts"
)

// withHeaders adds fixed headers to every request, as a traced client or a
// proxy in front of the gateway does.
type withHeaders map[string]string

func (h withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestTraceContextReachesStdioServer runs a traced gateway whose mcp-stdio
// plugin wraps a server (on the official TypeScript SDK) that answers the
// _meta of each tools/call it gets: a client's call that arrives with a W3C
// traceparent header reaches the server in params._meta as the gateway's
// call_tool span, a child in the client's trace, with the client's
// tracestate. No collector listens; spans are lost, calls are not.
func TestTraceContextReachesStdioServer(t *testing.T) {
	fixture, err := filepath.Abs(filepath.Join("..", "..", "plugins", "mcpstdio", "testdata", "fixture-server.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(testparts.NodeModules(t), "node_modules", "@modelcontextprotocol", "sdk")
	g := startGateway(t, setup{Plugins: fmt.Sprintf(`telemetry {
  otlp_endpoint = "127.0.0.1:8829"
}

plugin "fx" {
  type        = "mcp-stdio"
  auto_start  = true
  destructive = "allow" # the fixture's tools say nothing of themselves
  config {
    command = "node"
    args    = [%s]
    env     = { MCP_SDK_DIR = %s }
  }
}
`, strconv.Quote(fixture), strconv.Quote(sdk))})

	const clientTrace, clientSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	headers := withHeaders{"traceparent": "00-" + clientTrace + "-" + clientSpan + "-01", "tracestate": "client=1"}
	client := gomcp.NewClient(&gomcp.Implementation{Name: "toolgate-e2e-trace", Version: "1.0.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &gomcp.StreamableClientTransport{Endpoint: g.URL, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: headers}}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()

	var res *gomcp.CallToolResult
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err = cs.CallTool(ctx, &gomcp.CallToolParams{Name: "call_tool",
			Arguments: map[string]any{"name": "x_fx_echo-meta", "arguments": map[string]any{}}})
		if err == nil && !res.IsError || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond) // the plugin is still starting
	}
	if err != nil || res.IsError {
		t.Fatalf("call_tool x_fx_echo-meta = %+v, %v", res, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var got struct {
		Meta struct {
			Traceparent string `json:"traceparent"`
			Tracestate  string `json:"tracestate"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("echo-meta answered %s: %v", raw, err)
	}
	parts := strings.Split(got.Meta.Traceparent, "-")
	if len(parts) != 4 || parts[1] != clientTrace || parts[2] == clientSpan || len(parts[2]) != 16 || got.Meta.Tracestate != "client=1" {
		t.Errorf("the server got _meta %s; want traceparent 00-%s-<the call_tool span>-01 and tracestate client=1", raw, clientTrace)
	}
}
