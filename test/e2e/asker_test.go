//lint:file-ignore SA1019 2026-07-28 deprecates roots but still serves them, and these tests drive them.

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// asker is a real MCP client that a backend may ask for sampling, elicitation
// and roots: the TypeScript SDK's (testdata/client-requests.mjs) or the Go
// SDK's. The tests of server-to-client requests run the same steps on both.
type asker interface {
	// protocolVersion is the version the gateway chose for the client.
	protocolVersion(ctx context.Context) (string, error)
	toolNames(ctx context.Context) ([]string, error)
	// call runs a tools/call of a meta-tool and returns its text.
	call(ctx context.Context, name string, args map[string]any) (text string, isError bool, err error)
	// callWhile runs call_tool of a plugin tool that reports progress, and
	// calls during once the first progress arrived, while the call runs.
	callWhile(ctx context.Context, tool string, args map[string]any, during func()) (text string, isError bool, err error)
	// setRoots replaces the client's roots and tells the server they changed.
	setRoots(ctx context.Context, uri string) error
}

// callTool runs call_tool of a plugin tool through an asker.
func callTool(ctx context.Context, a asker, tool string, args map[string]any) (string, bool, error) {
	return a.call(ctx, "call_tool", map[string]any{"name": tool, "arguments": args})
}

// tsAsker is the TypeScript SDK client of testdata/client-requests.mjs.
type tsAsker struct{ *mcpClient }

// connectTS starts client-requests.mjs with flags, then "http URL" or
// "stdio COMMAND ARG...".
func connectTS(t *testing.T, args ...string) tsAsker {
	t.Helper()
	return tsAsker{startScript(t, testdataScript(t, "client-requests.mjs"), args...)}
}

// tsSeen is what the server sent the TypeScript client.
type tsSeen struct {
	ProtocolVersion string `json:"protocolVersion"`
	Requests        []struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	} `json:"requests"`
	Cancelled []struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	} `json:"cancelled"`
}

func (a tsAsker) seen(ctx context.Context) (tsSeen, error) {
	var s tsSeen
	raw, err := a.send("seen", "", nil, sdkTimeout(ctx)).wait(ctx)
	if err == nil {
		err = json.Unmarshal(raw, &s)
	}
	return s, err
}

// asked counts the requests of method the server sent the client.
func (s tsSeen) asked(method string) int {
	n := 0
	for _, r := range s.Requests {
		if r.Method == method {
			n++
		}
	}
	return n
}

func (a tsAsker) protocolVersion(ctx context.Context) (string, error) {
	s, err := a.seen(ctx)
	return s.ProtocolVersion, err
}

func (a tsAsker) toolNames(ctx context.Context) ([]string, error) { return a.listTools(ctx) }

func (a tsAsker) call(ctx context.Context, name string, args map[string]any) (string, bool, error) {
	r, err := a.mcpClient.call(ctx, name, args)
	if err != nil {
		return "", false, err
	}
	return r.text(), r.IsError, nil
}

func (a tsAsker) callWhile(ctx context.Context, tool string, args map[string]any, during func()) (string, bool, error) {
	p := a.start("call_tool", map[string]any{"name": tool, "arguments": args}, sdkTimeout(ctx))
	select {
	case <-p.Progress:
		during()
	case <-p.done:
	case <-ctx.Done():
	}
	r, err := p.waitResult(ctx)
	if err != nil {
		return "", false, err
	}
	return r.text(), r.IsError, nil
}

func (a tsAsker) setRoots(ctx context.Context, uri string) error {
	roots := []map[string]any{{"uri": uri, "name": "changed"}}
	_, err := a.send("set_roots", "", map[string]any{"roots": roots}, sdkTimeout(ctx)).wait(ctx)
	return err
}

// goAsker is the Go SDK client.
type goAsker struct{ *goClient }

func (a goAsker) protocolVersion(context.Context) (string, error) {
	return a.InitializeResult().ProtocolVersion, nil
}

func (a goAsker) toolNames(ctx context.Context) ([]string, error) {
	list, err := a.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names, nil
}

func (a goAsker) call(ctx context.Context, name string, args map[string]any) (string, bool, error) {
	r, err := a.CallTool(ctx, &gomcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, err
	}
	return goText(r), r.IsError, nil
}

func (a goAsker) callWhile(ctx context.Context, tool string, args map[string]any, during func()) (string, bool, error) {
	params := &gomcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": tool, "arguments": args}}
	params.SetProgressToken("while-" + a.tag)
	type answer struct {
		r   *gomcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := a.CallTool(ctx, params)
		done <- answer{r, err}
	}()
	var got answer
	select {
	case <-a.progress:
		during()
		got = <-done
	case got = <-done:
	}
	if got.err != nil {
		return "", false, got.err
	}
	return goText(got.r), got.r.IsError, nil
}

func (a goAsker) setRoots(_ context.Context, uri string) error {
	a.client.RemoveRoots("file:///" + a.tag + "/project")
	a.client.AddRoots(&gomcp.Root{URI: uri, Name: "changed"})
	return nil
}

// waitTools polls list_tools until every one of tools is in the catalog:
// server-everything registers its tools only after it was initialized.
func waitTools(t *testing.T, a asker, plugin string, tools ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var last string
	for {
		text, _, err := a.call(ctx, "list_tools", map[string]any{"plugin": plugin, "limit": 100})
		if err != nil {
			t.Fatalf("list_tools of %s: %v", plugin, err)
		}
		last = text
		var out struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		_ = json.Unmarshal([]byte(text), &out)
		missing := slices.DeleteFunc(slices.Clone(tools), func(want string) bool {
			return slices.ContainsFunc(out.Tools, func(x struct {
				Name string `json:"name"`
			}) bool {
				return x.Name == xTool(plugin, want)
			})
		})
		if len(missing) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("plugin %s did not offer %v in 30s; list_tools said %s", plugin, missing, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// xTool is a plugin tool's name in the gateway.
func xTool(plugin, tool string) string { return fmt.Sprintf("x_%s_%s", plugin, tool) }

// lacks returns the first of wants that text lacks ("" when none).
func lacks(text string, wants ...string) string {
	for _, w := range wants {
		if !strings.Contains(text, w) {
			return w
		}
	}
	return ""
}
