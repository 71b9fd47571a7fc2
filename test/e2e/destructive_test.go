package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/testparts"
)

// filesystemPlugin is the reference filesystem server, serving dir.
func filesystemPlugin(t *testing.T, name, dir, policy string) string {
	return fmt.Sprintf("plugin %q {\n  type = \"mcp-stdio\"\n%s  config {\n    command = %s\n    args = [%s]\n  }\n}\n",
		name, policy, strconv.Quote(testparts.NodeBin(t, "mcp-server-filesystem")), strconv.Quote(dir))
}

// TestDestructiveToolsAreConfirmed: a call of the filesystem server's
// write_file (destructiveHint: true) through call_tool runs only once the
// calling client's user said yes. Each real client answers the gateway's
// own elicitation — the TypeScript SDK on its call's stream (2025-11-25), the
// Go SDK with an input-required result and a retry (2026-07-28) — and the
// file is written; a declining client and a client that cannot be asked
// leave it unwritten, as destructive = "deny" does; destructive = "allow"
// writes without asking.
func TestDestructiveToolsAreConfirmed(t *testing.T) {
	dir := t.TempDir()
	g := startGateway(t, setup{Plugins: filesystemPlugin(t, "fs", dir, "") +
		filesystemPlugin(t, "fsdeny", dir, "  destructive = \"deny\"\n") +
		filesystemPlugin(t, "fsallow", dir, "  destructive = \"allow\"\n")})

	write := func(t *testing.T, c asker, plugin, file string) (string, bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		waitTools(t, c, plugin, "write_file")
		text, isError, err := callTool(ctx, c, xTool(plugin, "write_file"), map[string]any{"path": filepath.Join(dir, file), "content": "written by " + file})
		if err != nil {
			t.Fatalf("call_tool %s write_file: %v", plugin, err)
		}
		return text, isError
	}
	written := func(file string) bool {
		_, err := os.Stat(filepath.Join(dir, file))
		return err == nil
	}

	for _, k := range clientKinds {
		t.Run("accepting/"+k.name, func(t *testing.T) {
			c := connectKind(t, k, []string{"http", g.URL}, goTransport{url: g.URL})
			file := "yes-" + k.name + ".txt"
			if text, isError := write(t, c, "fs", file); isError || !strings.Contains(text, "Successfully wrote") || !written(file) {
				t.Errorf("confirmed write_file (isError %v): %q; file written: %v", isError, text, written(file))
			}
			if n := elicitations(t, c); n != 1 {
				t.Errorf("the client was asked %d times; want once", n)
			}
			// A tool that says it is not destructive runs without asking.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if text, isError, err := callTool(ctx, c, "x_fs_create_directory", map[string]any{"path": filepath.Join(dir, "d-"+k.name)}); err != nil || isError {
				t.Errorf("create_directory: %q, %v", text, err)
			}
			if text, isError := write(t, c, "fsallow", "allowed-"+k.name+".txt"); isError || !written("allowed-"+k.name+".txt") {
				t.Errorf("write_file under destructive = \"allow\": %q", text)
			}
			if n := elicitations(t, c); n != 1 {
				t.Errorf("the client was asked %d times after create_directory and an allowed write; want still once", n)
			}
		})
	}
	for _, tc := range []struct {
		name, plugin, file, want string
		connect                  func(t *testing.T) asker
	}{
		{"declining/ts", "fs", "no-ts.txt", "x_fs_write_file was not run: the user declined it",
			func(t *testing.T) asker { return connectTS(t, "--decline", "--tag", "ts", "http", g.URL) }},
		{"declining/go", "fs", "no-go.txt", "x_fs_write_file was not run: the user declined it",
			func(t *testing.T) asker {
				return goAsker{connectGo(t, goTransport{url: g.URL}, goClientOptions{tag: "go", decline: true})}
			}},
		{"without elicitation/ts", "fs", "cannot-ts.txt", `this client cannot be asked (it declared no form elicitation). Use a client that supports elicitation, or set destructive = "allow" in plugin "fs"`,
			func(t *testing.T) asker { return connectTS(t, "--no-capabilities", "--tag", "ts", "http", g.URL) }},
		{"denied/ts", "fsdeny", "denied-ts.txt", `x_fsdeny_write_file was not run: it may delete or overwrite data (its annotations say destructiveHint: true), and plugin "fsdeny" refuses such tools (destructive = "deny"`,
			func(t *testing.T) asker { return connectTS(t, "--tag", "ts", "http", g.URL) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.connect(t)
			text, isError := write(t, c, tc.plugin, tc.file)
			if !isError || !strings.Contains(text, tc.want) {
				t.Errorf("write_file = %q (isError %v); want an error result saying %q", text, isError, tc.want)
			}
			if written(tc.file) {
				t.Errorf("%s: the file was written", tc.name)
			}
		})
	}
	g.requireAlive()
}

// elicitations counts the elicitation requests the client was sent (the
// TypeScript client's own record) or answered (the Go client's handler).
func elicitations(t *testing.T, c asker) int {
	t.Helper()
	switch a := c.(type) {
	case goAsker:
		return int(a.elicited.Load())
	case tsAsker:
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := a.seen(ctx)
		if err != nil {
			t.Fatalf("seen: %v", err)
		}
		n := 0
		for _, r := range s.Requests {
			if r.Method == "elicitation/create" {
				n++
			}
		}
		return n
	}
	t.Fatalf("asker %T", c)
	return 0
}

// TestAcceptedConfirmationRunsOnce: on 2026-07-28 the Go SDK client's retry
// that carries its user's yes writes the file; that same retry sent again
// (the requestState and inputResponses the client wrote) is refused, saying
// the confirmation was used and to call again, and writes nothing.
func TestAcceptedConfirmationRunsOnce(t *testing.T) {
	dir := t.TempDir()
	g := startGateway(t, setup{Plugins: filesystemPlugin(t, "fs", dir, "")})
	c := connectGo(t, goTransport{url: g.URL}, goClientOptions{tag: "go"})
	waitTools(t, goAsker{c}, "fs", "write_file")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	file := filepath.Join(dir, "once.txt")
	text, isError, err := callTool(ctx, goAsker{c}, "x_fs_write_file", map[string]any{"path": file, "content": "written once"})
	if err != nil || isError || c.elicited.Load() != 1 {
		t.Fatalf("confirmed write_file: %q (isError %v, %v); the client was asked %d times", text, isError, err, c.elicited.Load())
	}

	var retry *gomcp.CallToolParams
	for _, line := range strings.Split(c.wire.String(), "\n") {
		body, ok := strings.CutPrefix(line, "write: ")
		var msg struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if !ok || json.Unmarshal([]byte(body), &msg) != nil || msg.Method != "tools/call" || !strings.Contains(string(msg.Params), `"requestState"`) {
			continue
		}
		retry = &gomcp.CallToolParams{}
		if err := json.Unmarshal(msg.Params, retry); err != nil {
			t.Fatalf("the client's retry: %v\n%s", err, msg.Params)
		}
	}
	if retry == nil || retry.RequestState == "" || len(retry.InputResponses) != 1 {
		t.Fatalf("no retry with the user's answer in the client's transcript:\n%s", c.wire.tail(20))
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, retry)
	if err == nil || !strings.Contains(err.Error(), "its confirmation was already used to run this call") ||
		!strings.Contains(err.Error(), "call the tool again without requestState") {
		t.Errorf("the same retry sent again: %+v, %v; want it refused as used", res, err)
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("the replayed confirmation wrote the file again")
	}
	if n := c.elicited.Load(); n != 1 {
		t.Errorf("the client was asked %d times; want once", n)
	}
	g.requireAlive()
}
