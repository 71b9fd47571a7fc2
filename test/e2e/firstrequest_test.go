package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFirstRequestsBeforePluginIsKnown: an IDE starts `toolgate serve
// --stdio` and asks for a prompt, a resource and a tool it knows by name at
// once, or searches for a tool, while the lazy server-everything, never run
// on this machine, is still starting to tell what it serves. Each request
// waits for it and is answered, instead of hearing that no such prompt,
// resource or tool exists. The official Go SDK is the client, each kind on a fresh gateway.
func TestFirstRequestsBeforePluginIsKnown(t *testing.T) {
	first := map[string]func(ctx context.Context, c *goClient) (string, error){
		"prompts/get": func(ctx context.Context, c *goClient) (string, error) {
			r, err := c.GetPrompt(ctx, &gomcp.GetPromptParams{Name: "x_everything_simple-prompt"})
			if err != nil {
				return "", err
			}
			return r.Messages[0].Content.(*gomcp.TextContent).Text, nil
		},
		"resources/read": func(ctx context.Context, c *goClient) (string, error) {
			r, err := c.ReadResource(ctx, &gomcp.ReadResourceParams{URI: "demo://resource/static/document/architecture.md"})
			if err != nil {
				return "", err
			}
			return r.Contents[0].Text, nil
		},
		"call_tool": func(ctx context.Context, c *goClient) (string, error) {
			r, err := c.CallTool(ctx, &gomcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{
				"name": "x_everything_echo", "arguments": map[string]any{"message": "first"}}})
			if err != nil {
				return "", err
			}
			return r.Content[0].(*gomcp.TextContent).Text, nil
		},
	}
	first["filter_tools"] = func(ctx context.Context, c *goClient) (string, error) {
		r, err := c.CallTool(ctx, &gomcp.CallToolParams{Name: "filter_tools", Arguments: map[string]any{"query": "echo back a message"}})
		if err != nil {
			return "", err
		}
		return r.Content[0].(*gomcp.TextContent).Text, nil
	}
	want := map[string]string{"prompts/get": "simple prompt", "resources/read": "Architecture", "call_tool": "Echo: first",
		"filter_tools": `"name": "x_everything_echo"`}
	for kind, ask := range first {
		t.Run(kind, func(t *testing.T) {
			cfg, _ := writeConfig(t, setup{Plugins: everythingPlugin(t, "everything", false)})
			c := connectGo(t, goTransport{args: []string{"serve", "--stdio", "--config", cfg}}, goClientOptions{version: "2025-11-25", tag: "first"})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			got, err := ask(ctx, c)
			if err != nil || !strings.Contains(got, want[kind]) {
				t.Fatalf("first %s: %q, %v; want an answer containing %q\n%s", kind, got, err, want[kind], c.wire.tail(20))
			}
		})
	}
}
