package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCallValidation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true)})
	c := connectHTTP(t, g.URL)
	c.waitPlugin(ctx, "everything", 30*time.Second, running)
	// The schema as the gateway shows it: the server's own, compacted.
	const echoSchema = `"properties":{"message":{"type":"string","description":"Message to echo"}}`

	t.Run("bad arguments name the field and show the schema", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			args map[string]any
		}{
			{"wrong type", map[string]any{"message": 42}},
			{"missing required", map[string]any{}},
		} {
			r, err := c.callTool(ctx, "x_everything_echo", tc.args)
			if err != nil {
				t.Fatal(err)
			}
			text := r.text()
			t.Logf("%s: %s", tc.name, text)
			if !r.IsError || !strings.Contains(text, "message") || !strings.Contains(text, echoSchema) {
				t.Errorf("%s: call_tool answered %+v; want an isError naming \"message\" and containing the input schema", tc.name, r)
			}
			if strings.HasPrefix(text, "Echo:") {
				t.Errorf("%s: the call reached the server: %q", tc.name, text)
			}
		}
	})

	t.Run("an unknown tool gets the closest names", func(t *testing.T) {
		r, err := c.callTool(ctx, "x_everything_ecoh", map[string]any{"message": "x"})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("unknown tool: %s", r.text())
		if !r.IsError || !strings.Contains(r.text(), "x_everything_echo") {
			t.Errorf("call_tool of x_everything_ecoh answered %+v; want an isError suggesting x_everything_echo", r)
		}
	})

	t.Run("a direct tools/call says to use call_tool", func(t *testing.T) {
		r, err := c.call(ctx, "x_everything_echo", map[string]any{"message": "x"})
		var text string
		var rpc *rpcError
		switch {
		case errors.As(err, &rpc):
			text = rpc.Message
		case err != nil:
			t.Fatal(err)
		case !r.IsError:
			t.Fatalf("a direct tools/call of x_everything_echo answered %+v", r)
		default:
			text = r.text()
		}
		t.Logf("direct call: %s", text)
		if !strings.Contains(text, "call_tool") || !strings.Contains(text, `"name":"x_everything_echo"`) {
			t.Errorf("a direct tools/call answered %q; want it to say how to call x_everything_echo through call_tool", text)
		}
	})
	g.requireAlive()
}
