//lint:file-ignore SA1019 2026-07-28 deprecates sampling and roots but still serves them, and these tests drive them.

package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// goClient is a session of the official MCP Go SDK's client, connected to a
// gateway as an application built on that SDK would be. It answers sampling,
// elicitation and roots (unless made without capabilities) with answers that
// carry its tag, counts what it was asked, and keeps a transcript of every
// JSON-RPC message it wrote and read.
type goClient struct {
	*gomcp.ClientSession
	client *gomcp.Client
	tag    string
	// decline makes the client decline every elicitation.
	decline bool
	wire    *logSink
	// sampled, elicited count the handlers' runs.
	sampled, elicited atomic.Int32
	// progress gets the calls' progress notifications (dropped when full).
	progress chan struct{}
}

// goClientOptions say which client to make.
type goClientOptions struct {
	version        string // protocol version to ask for; "" = the SDK's newest, 2026-07-28
	tag            string // put in every answer, so a test can tell whose answer it got
	noCapabilities bool   // declare nothing, set no handlers
	decline        bool   // decline every elicitation
}

// goTransport says how a Go SDK client reaches the gateway: over HTTP, or a
// command it runs and speaks stdio with (`toolgate serve --stdio`, `toolgate bridge`).
type goTransport struct {
	url  string
	args []string // of bins.toolgate
}

// connectGo connects a Go SDK client; the test's cleanup ends its session and
// any process it started.
func connectGo(t *testing.T, tr goTransport, o goClientOptions) *goClient {
	t.Helper()
	c := &goClient{tag: o.tag, decline: o.decline, wire: &logSink{}, progress: make(chan struct{}, 64)}
	opts := &gomcp.ClientOptions{Capabilities: &gomcp.ClientCapabilities{}}
	if !o.noCapabilities {
		opts = &gomcp.ClientOptions{
			Capabilities: &gomcp.ClientCapabilities{
				RootsV2:     &gomcp.RootCapabilities{ListChanged: true},
				Elicitation: &gomcp.ElicitationCapabilities{Form: &gomcp.FormElicitationCapabilities{}},
			},
			CreateMessageHandler: c.sample,
			ElicitationHandler:   c.elicit,
		}
	}
	opts.ProgressNotificationHandler = func(context.Context, *gomcp.ProgressNotificationClientRequest) {
		select {
		case c.progress <- struct{}{}:
		default:
		}
	}
	c.client = gomcp.NewClient(&gomcp.Implementation{Name: "toolgate-e2e-" + o.tag, Version: "1.0.0"}, opts)
	if !o.noCapabilities {
		c.client.AddRoots(&gomcp.Root{URI: "file:///" + o.tag + "/project", Name: o.tag + " project"})
	}

	var inner gomcp.Transport
	var cmd *exec.Cmd
	stderr := &logSink{}
	if tr.url != "" {
		inner = &gomcp.StreamableClientTransport{Endpoint: tr.url, MaxRetries: -1}
	} else {
		cmd = exec.Command(bins.toolgate, tr.args...)
		cmd.Stderr = stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		inner = &gomcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.client.Connect(ctx, &gomcp.LoggingTransport{Transport: inner, Writer: c.wire}, &gomcp.ClientSessionOptions{ProtocolVersion: o.version})
	t.Cleanup(func() {
		if cs != nil {
			_ = cs.Close()
		}
		// Close waits for the process and kills it when it lingers; should
		// the session never have opened, it is killed here.
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		if stderr.contains("WARNING: DATA RACE") {
			t.Errorf("a process under the Go SDK client reported a data race:\n%s", stderr.String())
		} else if t.Failed() && cmd != nil {
			t.Logf("%s stderr (last lines):\n%s", strings.Join(cmd.Args, " "), stderr.tail(100))
		}
	})
	if err != nil {
		t.Fatalf("Go SDK client (%s): connect: %v\n%s", o.tag, err, stderr.tail(60))
	}
	c.ClientSession = cs
	return c
}

func (c *goClient) sample(_ context.Context, req *gomcp.CreateMessageRequest) (*gomcp.CreateMessageResult, error) {
	c.sampled.Add(1)
	var asked []string
	for _, m := range req.Params.Messages {
		if tc, ok := m.Content.(*gomcp.TextContent); ok {
			asked = append(asked, tc.Text)
		}
	}
	return &gomcp.CreateMessageResult{Model: c.tag + "-model", Role: "assistant",
		Content: &gomcp.TextContent{Text: fmt.Sprintf("%s sampled <%s>", c.tag, strings.Join(asked, " "))}}, nil
}

func (c *goClient) elicit(_ context.Context, _ *gomcp.ElicitRequest) (*gomcp.ElicitResult, error) {
	c.elicited.Add(1)
	if c.decline {
		return &gomcp.ElicitResult{Action: "decline"}, nil
	}
	return &gomcp.ElicitResult{Action: "accept", Content: map[string]any{
		"name": c.tag + " Ada Lovelace", "check": true, "email": "ada@example.com"}}, nil
}

// goText joins a result's text blocks.
func goText(r *gomcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*gomcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// count says how many lines of the client's transcript start with dir
// ("read: " or "write: ") and contain every one of parts.
func (c *goClient) count(dir string, parts ...string) int {
	n := 0
	for _, line := range strings.Split(c.wire.String(), "\n") {
		if !strings.HasPrefix(line, dir) {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			n++
		}
	}
	return n
}
