package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// sdkRun is what testdata/sdk-client.mjs recorded.
type sdkRun struct {
	Server struct{ Name, Version string }
	Tools  []struct {
		Name        string
		InputSchema json.RawMessage
	}
	Kinds    json.RawMessage
	Unknown  toolResult
	Fail     toolResult
	Asked    toolResult
	Sequence []json.RawMessage
	Cancel   string
	Read     struct {
		Contents []struct{ URI, MimeType, Text string }
	}
	Resources []struct{ URI, Name string }
	Updated   json.RawMessage
	Logged    json.RawMessage
	Errors    []string
}

type toolResult struct {
	IsError bool
	Content []struct{ Type, Text string }
}

// runSDKClient runs the official TypeScript SDK client against a gateway.
func runSDKClient(t *testing.T, env ...string) sdkRun {
	t.Helper()
	var run sdkRun
	sdkDir := filepath.Join(testparts.NodeModules(t), "node_modules")
	testparts.RunNodeJSON(t, 60*time.Second, &run, append([]string{"SDK_DIR=" + sdkDir}, env...), "testdata/sdk-client.mjs")
	return run
}

func checkSDKRun(t *testing.T, run sdkRun) {
	t.Helper()
	if run.Server.Name != "toolgate-test" || run.Server.Version != "0.0.1" {
		t.Errorf("server info %+v", run.Server)
	}
	var names []string
	for _, tool := range run.Tools {
		names = append(names, tool.Name)
	}
	if !reflect.DeepEqual(names, toolNames) {
		t.Errorf("tools = %v, want %v", names, toolNames)
	}
	sameJSON(t, run.Kinds, []byte(kindsWire()))

	wantUnknown := `x_everything_echo is reached through call_tool: {"name":"x_everything_echo"}`
	if !run.Unknown.IsError || len(run.Unknown.Content) != 1 || run.Unknown.Content[0].Text != wantUnknown {
		t.Errorf("unknown tool: %+v", run.Unknown)
	}
	if !run.Fail.IsError || len(run.Fail.Content) != 1 || run.Fail.Content[0].Text != "backend exploded" {
		t.Errorf("failing tool: %+v", run.Fail)
	}
	checkAsked(t, run.Asked)

	want := []string{
		`{"progress":1,"total":5,"message":"step 1"}`,
		`{"progress":2,"total":5,"message":"step 2"}`,
		`{"progress":3,"total":5,"message":"step 3"}`,
		`{"progress":4,"total":5,"message":"step 4"}`,
		`{"progress":5,"total":5,"message":"step 5"}`,
		`{"result":"did 5 steps"}`,
	}
	if len(run.Sequence) != len(want) {
		t.Errorf("progress then result: got %d events %s, want %d", len(run.Sequence), run.Sequence, len(want))
	} else {
		for i := range want {
			sameJSON(t, run.Sequence[i], []byte(want[i]))
		}
	}

	if !strings.HasPrefix(run.Cancel, "rejected: ") || !strings.Contains(run.Cancel, "test cancels") {
		t.Errorf("cancelled call: %s", run.Cancel)
	}
	if len(run.Resources) != 1 || run.Resources[0].URI != catalogURI {
		t.Errorf("resources: %+v", run.Resources)
	}
	if len(run.Read.Contents) != 1 || run.Read.Contents[0].Text != `{"tools":9}` || run.Read.Contents[0].MimeType != "application/json" {
		t.Errorf("read: %+v", run.Read)
	}
	sameJSON(t, run.Updated, []byte(`{"uri":"toolgate://catalog"}`))
	sameJSON(t, run.Logged, []byte(`{"level":"warning","logger":"toolgate-test","data":{"msg":"catalog changed"}}`))
	if len(run.Errors) != 0 {
		t.Errorf("client reported errors: %q", run.Errors)
	}
}

// checkAsked: the TypeScript client answered every request the backend
// sent it, on the stream of the call.
func checkAsked(t *testing.T, asked toolResult) {
	t.Helper()
	if asked.IsError || len(asked.Content) != 1 {
		t.Fatalf("ask: %+v", asked)
	}
	var rep askReport
	if err := json.Unmarshal([]byte(asked.Content[0].Text), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Caps.Sampling || !rep.Caps.SamplingTools || !rep.Caps.ElicitationForm || !rep.Caps.ElicitationURL || !rep.Caps.RootsListChanged {
		t.Errorf("capabilities seen by the backend: %+v", rep.Caps)
	}
	want := []string{`"ts sampled: plain"`, `"ts sampled: tooled with tool lookup"`, `"Grace"`, `"accept"`, `"file:///ts/project"`}
	if len(rep.Answers) != len(want) {
		t.Fatalf("answers: %s", asked.Content[0].Text)
	}
	for i, w := range want {
		if !strings.Contains(string(rep.Answers[i]), w) {
			t.Errorf("answer %d = %s, want it to contain %s", i, rep.Answers[i], w)
		}
	}
}

func TestSDKClientOverStreamableHTTP(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Tokens = []string{"sdk-token"} })
	addr, cancel, done := serve(t, f, "127.0.0.1:0")
	run := runSDKClient(t, "MCP_URL=http://"+addr.String()+"/mcp", "MCP_TOKEN=sdk-token", "MCP_ASKS="+allAsks)
	checkSDKRun(t, run)
	select {
	case err := <-f.cancelled:
		if err != context.Canceled {
			t.Errorf("block saw %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the client's cancellation never reached the handler")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ServeHTTP: %v", err)
	}
}

// TestSDKClientOverStdio starts the test binary as a stdio server the way an
// IDE starts toolgate: DetachStdio, a child on stdin, then ServeStdio.
func TestSDKClientOverStdio(t *testing.T) {
	env, _ := json.Marshal(map[string]string{childEnv: "stdio"})
	run := runSDKClient(t, "MCP_CMD="+os.Args[0], "MCP_ENV="+string(env), "MCP_ASKS="+allAsks)
	checkSDKRun(t, run)
}
