package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// mcpClient is a session of the official MCP TypeScript SDK's Client, run by
// testdata/client.mjs and driven line by line from Go.
type mcpClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *logSink
	// ServerPid is the process the SDK spawned over stdio (0 over HTTP).
	ServerPid int

	mu      sync.Mutex
	nextID  int
	pending map[int]*pendingCall
	gone    chan struct{} // closed when the client's stdout ends
	// notices are the session's notifications/tasks/status, in order.
	notices []json.RawMessage

	closeOnce sync.Once
}

// result is an MCP CallToolResult as the SDK hands it to its caller.
type result struct {
	Content           []content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

type content struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
	Resource *struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Blob     string `json:"blob"`
	} `json:"resource"`
}

// text joins the result's text blocks.
func (r *result) text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// rpcError is a JSON-RPC error the SDK raised for a request.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("MCP error %d: %s", e.Code, e.Message) }

var errClientGone = errors.New("MCP client process ended")

// progress is one notifications/progress the client received for a call.
type progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message"`
}

// pendingCall is one request in flight.
type pendingCall struct {
	Progress chan progress // buffered; progress past its capacity is dropped
	done     chan struct{}
	raw      json.RawMessage
	err      error
}

// wait returns the request's answer, or ctx's error when it ends first.
func (p *pendingCall) wait(ctx context.Context) (json.RawMessage, error) {
	select {
	case <-p.done:
		return p.raw, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// waitResult is wait for a tools/call.
func (p *pendingCall) waitResult(ctx context.Context) (*result, error) {
	raw, err := p.wait(ctx)
	if err != nil {
		return nil, err
	}
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("decode tool result %s: %w", raw, err)
	}
	return &r, nil
}

// testdataScript is the absolute path of a client script in testdata.
func testdataScript(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// connectHTTP opens a session over streamable HTTP.
func connectHTTP(t *testing.T, url string) *mcpClient {
	t.Helper()
	return startClient(t, "http", url)
}

// connectStdio makes the SDK spawn `toolgate serve --stdio` with the config
// and opens a session over its stdin/stdout.
func connectStdio(t *testing.T, s setup) *mcpClient {
	t.Helper()
	cfg, _ := writeConfig(t, s)
	return startClient(t, "stdio", bins.toolgate, "serve", "--stdio", "--config", cfg)
}

// connectHTTPAs opens a session over streamable HTTP with a bearer token.
func connectHTTPAs(t *testing.T, url, token string) *mcpClient {
	t.Helper()
	return startClientEnv(t, []string{"MCP_TOKEN=" + token}, "http", url)
}

func startClient(t *testing.T, args ...string) *mcpClient {
	t.Helper()
	return startClientEnv(t, nil, args...)
}

// startClientEnv runs the client with env added to the test's environment.
func startClientEnv(t *testing.T, env []string, args ...string) *mcpClient {
	t.Helper()
	return startScriptEnv(t, testdataScript(t, "client.mjs"), env, args...)
}

// startScript runs a client script that speaks client.mjs's line protocol.
func startScript(t *testing.T, script string, args ...string) *mcpClient {
	t.Helper()
	return startScriptEnv(t, script, nil, args...)
}

// startScriptEnv runs such a script with env added to the test's environment.
func startScriptEnv(t *testing.T, script string, env []string, args ...string) *mcpClient {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	c := &mcpClient{t: t, stderr: &logSink{}, pending: map[int]*pendingCall{}, gone: make(chan struct{})}
	c.cmd = exec.Command(node, append([]string{script}, args...)...)
	c.cmd.Env = append(os.Environ(), "MCP_SDK_DIR="+filepath.Join(testparts.NodeModules(t), "node_modules", "@modelcontextprotocol", "sdk"))
	c.cmd.Env = append(c.cmd.Env, env...)
	c.cmd.Stderr = c.stderr
	c.cmd.WaitDelay = 2 * time.Second
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start MCP client: %v", err)
	}
	ready := make(chan error, 1)
	go c.read(stdout, ready)
	t.Cleanup(c.close)
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("MCP client did not connect: %v\n%s", err, c.stderr.tail(60))
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("MCP client did not connect in 30s\n%s", c.stderr.tail(60))
	}
	return c
}

// read dispatches the client's answers until its stdout ends.
func (c *mcpClient) read(stdout io.Reader, ready chan<- error) {
	defer func() {
		c.mu.Lock()
		for id, p := range c.pending {
			p.err = errClientGone
			close(p.done)
			delete(c.pending, id)
		}
		c.mu.Unlock()
		close(c.gone)
		select {
		case ready <- errClientGone:
		default:
		}
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	first := true
	for sc.Scan() {
		if first {
			first = false
			var hello struct {
				Ready bool   `json:"ready"`
				Pid   int    `json:"pid"`
				Error string `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &hello); err != nil || !hello.Ready {
				ready <- fmt.Errorf("client said %s", sc.Bytes())
				return
			}
			c.ServerPid = hello.Pid
			ready <- nil
			continue
		}
		var msg struct {
			ID       int             `json:"id"`
			Result   json.RawMessage `json:"result"`
			Error    *rpcError       `json:"error"`
			Progress *progress       `json:"progress"`
			Notice   json.RawMessage `json:"notice"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			continue
		}
		c.mu.Lock()
		if msg.Notice != nil {
			c.notices = append(c.notices, msg.Notice)
		}
		p := c.pending[msg.ID]
		switch {
		case p == nil:
		case msg.Progress != nil:
			select {
			case p.Progress <- *msg.Progress:
			default:
			}
		default:
			p.raw = msg.Result
			if msg.Error != nil {
				p.err = msg.Error
			}
			delete(c.pending, msg.ID)
			close(p.done)
		}
		c.mu.Unlock()
	}
}

// send starts one request. timeout bounds it inside the SDK (0: the SDK's 60 s).
func (c *mcpClient) send(op, name string, args any, timeout time.Duration) *pendingCall {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	p := &pendingCall{Progress: make(chan progress, 1024), done: make(chan struct{})}
	c.pending[id] = p
	c.mu.Unlock()
	line, err := json.Marshal(map[string]any{"id": id, "op": op, "name": name, "arguments": args,
		"progress": true, "timeout_ms": timeout.Milliseconds()})
	if err == nil {
		_, err = c.stdin.Write(append(line, '\n'))
	}
	if err != nil {
		c.mu.Lock()
		if _, ok := c.pending[id]; ok {
			delete(c.pending, id)
			p.err = fmt.Errorf("send to MCP client: %w", err)
			close(p.done)
		}
		c.mu.Unlock()
	}
	return p
}

// start begins a tools/call of name (a meta-tool, or anything for the gateway
// to refuse); progress notifications arrive on the returned call's channel.
func (c *mcpClient) start(name string, args any, timeout time.Duration) *pendingCall {
	return c.send("call", name, args, timeout)
}

// call runs a tools/call and waits for its result.
func (c *mcpClient) call(ctx context.Context, name string, args any) (*result, error) {
	return c.start(name, args, sdkTimeout(ctx)).waitResult(ctx)
}

// startTool begins call_tool of a plugin tool; timeout also bounds it in the
// gateway (timeout_seconds) when set.
func (c *mcpClient) startTool(tool string, args any, timeout time.Duration) *pendingCall {
	in := map[string]any{"name": tool, "arguments": args}
	if timeout > 0 {
		in["timeout_seconds"] = timeout.Seconds()
	}
	return c.start("call_tool", in, timeout+5*time.Second)
}

// callTool runs call_tool of a plugin tool and waits for its result.
func (c *mcpClient) callTool(ctx context.Context, tool string, args any) (*result, error) {
	return c.start("call_tool", map[string]any{"name": tool, "arguments": args}, sdkTimeout(ctx)).waitResult(ctx)
}

// listTools runs tools/list.
func (c *mcpClient) listTools(ctx context.Context) ([]string, error) {
	raw, err := c.send("list_tools", "", nil, sdkTimeout(ctx)).wait(ctx)
	if err != nil {
		return nil, err
	}
	var out struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	names := make([]string, len(out.Tools))
	for i, tool := range out.Tools {
		names[i] = tool.Name
	}
	return names, nil
}

// meta runs a meta-tool (or, through call_tool, a core tool) that must
// succeed, and decodes its structured content into out.
func (c *mcpClient) meta(ctx context.Context, name string, args, out any) {
	c.t.Helper()
	r, err := c.call(ctx, name, args)
	if err != nil {
		c.t.Fatalf("%s %v: %v", name, args, err)
	}
	if r.IsError {
		c.t.Fatalf("%s %v answered an error: %s", name, args, r.text())
	}
	if err := json.Unmarshal(r.StructuredContent, out); err != nil {
		c.t.Fatalf("%s: decode structured content %s: %v", name, r.StructuredContent, err)
	}
}

// pluginStatus is what core_plugin_get answers.
type pluginStatus struct {
	Name      string   `json:"name"`
	State     string   `json:"state"`
	Pid       int      `json:"pid"`
	Restarts  int      `json:"restarts"`
	Tools     int      `json:"tools"`
	LastError string   `json:"last_error"`
	Stderr    []string `json:"stderr"`
	NextTry   string   `json:"next_try"`
}

// plugin asks core_plugin_get, through call_tool, how a plugin is.
func (c *mcpClient) plugin(ctx context.Context, name string) pluginStatus {
	c.t.Helper()
	var st pluginStatus
	c.meta(ctx, "call_tool", map[string]any{"name": "core_plugin_get", "arguments": map[string]any{"name": name}}, &st)
	return st
}

// waitPlugin polls core_plugin_get until ok accepts the plugin's status.
func (c *mcpClient) waitPlugin(ctx context.Context, name string, d time.Duration, ok func(pluginStatus) bool) pluginStatus {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		st := c.plugin(ctx, name)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("plugin %q did not reach the expected state in %s; last status %+v", name, d, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// running is a waitPlugin condition.
func running(st pluginStatus) bool { return st.State == "running" && st.Pid != 0 }

func sdkTimeout(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl) + time.Second
	}
	return 0
}

// close ends the client process without waiting for calls in flight; over
// stdio the SDK then ends the gateway.
func (c *mcpClient) close() { c.closeOnce.Do(c.end) }

func (c *mcpClient) end() {
	_, _ = c.stdin.Write([]byte(`{"op":"close"}` + "\n"))
	_ = c.stdin.Close()
	select {
	case <-c.gone:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
	}
	_ = c.cmd.Wait()
	if c.stderr.contains("WARNING: DATA RACE") {
		c.t.Errorf("a process under the MCP client reported a data race:\n%s", c.stderr.String())
	} else if c.t.Failed() {
		c.t.Logf("MCP client stderr (last lines):\n%s", c.stderr.tail(150))
	}
}
