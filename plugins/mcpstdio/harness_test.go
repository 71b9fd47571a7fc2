package mcpstdio_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/plugins/mcpstdio"
	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// servePluginEnv makes this test binary serve the plugin instead of running
// tests, the way the gateway re-executes itself as `toolgate plugin serve
// mcp-stdio`, so tests can drive a real plugin process.
const servePluginEnv = "MCPSTDIO_TEST_SERVE_PLUGIN"

func TestMain(m *testing.M) {
	if os.Getenv(servePluginEnv) == "1" {
		logger := plugin.Logger()
		plugin.ServeBackend(mcpstdio.New(logger), logger)
		return
	}
	goleak.VerifyTestMain(m)
}

// harness is one mcp-stdio backend served over the real gRPC path.
type harness struct {
	b     *mcpstdio.Backend // the plugin side, for what only tests look at
	host  protov1.Backend   // what the gateway sees
	exits chan error        // OnServerExit calls
	logs  *testparts.Buffer
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	logs := &testparts.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Name: "mcp-stdio", Output: logs, Level: hclog.Debug})
	b := mcpstdio.New(logger)
	h := &harness{b: b, exits: make(chan error, 1), logs: logs}
	b.OnServerExit = func(err error) { h.exits <- err }
	// Registered before Serve, so it runs after the gRPC side is torn down.
	t.Cleanup(func() {
		_ = b.Close()
		if t.Failed() {
			t.Logf("plugin log:\n%s", logs.String())
		}
	})
	h.host = plugintest.Serve(t, b)
	return h
}

// start configures a harness with cfg and fails the test if that fails.
func start(t *testing.T, cfg map[string]any) *harness {
	t.Helper()
	h := newHarness(t)
	if err := h.configure(cfg); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	return h
}

// sharedCase is a subtest run against a harness its parent started.
type sharedCase struct {
	name string
	run  func(*testing.T, *harness)
}

// runShared starts one harness with cfg and runs every case against it as a
// subtest, so a suite pays the server's start-up once.
func runShared(t *testing.T, cfg map[string]any, cases []sharedCase) {
	t.Helper()
	h := start(t, cfg)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, h) })
	}
}

func (h *harness) configure(cfg map[string]any) error {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return h.host.Configure(ctx, raw)
}

func (h *harness) call(t *testing.T, name string, args any) *protov1.Result {
	t.Helper()
	res, err := h.callWith(t, &protov1.CallRequest{Name: name, Arguments: mustJSON(t, args)}, &plugintest.Events{})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func (h *harness) callWith(t *testing.T, req *protov1.CallRequest, events protov1.CallEvents) (*protov1.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.host.CallTool(ctx, req, events)
}

// watch opens a Watch stream for the rest of the test.
func (h *harness) watch(t *testing.T) <-chan protov1.Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan protov1.Event, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.host.Watch(ctx, func(e protov1.Event) { events <- e })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return events
}

func waitEvent(t *testing.T, events <-chan protov1.Event, kind protov1.EventKind) protov1.Event {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case e := <-events:
			if e.Kind == kind {
				return e
			}
		case <-timeout:
			t.Fatalf("no event of kind %d within 15s", kind)
		}
	}
}

func everything(t *testing.T, args ...string) map[string]any {
	if len(args) == 0 {
		args = []string{"stdio"}
	}
	return map[string]any{"command": testparts.NodeBin(t, "mcp-server-everything"), "args": args}
}

// fixture is the server in testdata, built on the official TypeScript SDK.
func fixture(t *testing.T) map[string]any {
	script, err := filepath.Abs("testdata/fixture-server.mjs")
	if err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(testparts.NodeModules(t), "node_modules", "@modelcontextprotocol", "sdk")
	return map[string]any{"command": "node", "args": []string{script}, "env": map[string]string{"MCP_SDK_DIR": sdk}}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toolNames(tools []protov1.Tool) []string {
	names := make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.Name
	}
	return names
}

func textOf(r *protov1.Result) string {
	var parts []string
	for _, c := range r.Content {
		if c.Kind == protov1.KindText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// waitFor polls cond until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}
