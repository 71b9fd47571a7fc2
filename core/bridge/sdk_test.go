package bridge

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/core/client/gatewaytest"
	"github.com/toolgate/toolgate/internal/testparts"
)

var bins *gatewaytest.Binaries

func TestMain(m *testing.M) { gatewaytest.Main(m, &bins, nil) }

type bridgeRun struct {
	InitMS   float64 `json:"initMs"`
	Server   struct{ Name string }
	Tools    []string
	Filter   []string
	Sequence []json.RawMessage
	Cancel   string
	CancelMS float64 `json:"cancelMs"`

	AfterCancel          string
	AfterRestart         string
	RestartMS            float64 `json:"restartMs"`
	ProgressAfterRestart []float64
	ToolsAfterRestart    int
	Errors               []string
}

// TestSDKClientThroughBridge: the official TypeScript SDK client runs
// `toolgate bridge` as its stdio server, like an IDE, against a gateway over
// HTTP that restarts midway.
func TestSDKClientThroughBridge(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required: %v", err)
	}
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))

	cmd := exec.Command(node, "testdata/bridge-client.mjs")
	cmd.Env = append(os.Environ(),
		"SDK_DIR="+filepath.Join(testparts.NodeModules(t), "node_modules"),
		"TOOLGATE="+bins.Toolgate, "GATEWAY_URL="+gw.URL)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testparts.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()

	var run *bridgeRun
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Step   string
			Result *bridgeRun
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("script printed %q: %v", sc.Text(), err)
		}
		switch {
		case line.Step == "restart":
			gw.Stop()
			// The script's next call goes out now, to a gateway that is down.
			if _, err := io.WriteString(stdin, "go\n"); err != nil {
				t.Fatal(err)
			}
			_ = stdin.Close()
			time.Sleep(500 * time.Millisecond)
			gw.StartAgain()
		case line.Result != nil:
			run = line.Result
		}
	}
	if err := cmd.Wait(); err != nil || run == nil {
		t.Fatalf("script: %v, result %v\nstderr:\n%s", err, run, stderr.String())
	}
	logs := stderr.String()

	if run.Server.Name != "toolgate" {
		t.Errorf("server = %+v, want the gateway's own name through the bridge", run.Server)
	}
	if run.InitMS > 1000 {
		t.Errorf("initialize through the bridge took %.0f ms", run.InitMS)
	}
	want := []string{"list_tools", "filter_tools", "describe_tool", "call_tool", "list_core_tools", "list_resources",
		"describe_resource", "get_resource", "list_prompts", "describe_prompt", "get_prompt"}
	if !reflect.DeepEqual(run.Tools, want) {
		t.Errorf("tools/list = %v, want the meta-tools %v", run.Tools, want)
	}
	if len(run.Filter) == 0 || run.Filter[0] != "x_hello_count" {
		t.Errorf("filter_tools = %v, want x_hello_count first", run.Filter)
	}
	wantSeq := []string{
		`{"message":"counted 1","progress":1,"total":3}`,
		`{"message":"counted 2","progress":2,"total":3}`,
		`{"message":"counted 3","progress":3,"total":3}`,
		`{"result":"counted to 3"}`,
	}
	if got := rawStrings(run.Sequence); !reflect.DeepEqual(got, wantSeq) {
		t.Errorf("progress then result:\n got %v\nwant %v", got, wantSeq)
	}
	if !strings.HasPrefix(run.Cancel, "rejected: ") || !strings.Contains(run.Cancel, "test cancels") {
		t.Errorf("cancelled call: %s", run.Cancel)
	}
	if run.CancelMS > 5000 {
		t.Errorf("cancelled call took %.0f ms to end; 100 steps of 100 ms would be 10 s", run.CancelMS)
	}
	if run.AfterCancel != "still here" {
		t.Errorf("call after the cancel = %q", run.AfterCancel)
	}
	if run.AfterRestart != "Hello, Ada!" {
		t.Errorf("call across the restart = %q\nstderr:\n%s", run.AfterRestart, logs)
	}
	if !reflect.DeepEqual(run.ProgressAfterRestart, []float64{1, 2}) {
		t.Errorf("progress after the restart = %v", run.ProgressAfterRestart)
	}
	if run.ToolsAfterRestart != 11 {
		t.Errorf("tools/list after the restart: %d tools", run.ToolsAfterRestart)
	}
	if len(run.Errors) != 0 {
		t.Errorf("the SDK client saw errors: %q", run.Errors)
	}
	if !strings.Contains(logs, "started a new one") {
		t.Errorf("the bridge did not log the new session:\n%s", logs)
	}
	t.Logf("initialize %.0f ms, cancel %.0f ms, call across restart %.0f ms", run.InitMS, run.CancelMS, run.RestartMS)
}

func rawStrings(raw []json.RawMessage) []string {
	out := make([]string, len(raw))
	for i, r := range raw {
		var v any
		_ = json.Unmarshal(r, &v)
		b, _ := json.Marshal(v)
		out[i] = string(b)
	}
	return out
}

// TestSDKClientWithoutGateway: an IDE whose gateway is not running hears so
// in the answer to its initialize, with the URL and what to run, and a
// gateway that comes up while the bridge waits for its first connection is
// used.
func TestSDKClientWithoutGateway(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is required: %v", err)
	}
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))
	gw.Stop() // its URL is known and nothing listens there

	cmd := exec.Command(node, "testdata/bridge-no-gateway.mjs")
	cmd.Env = append(os.Environ(),
		"SDK_DIR="+filepath.Join(testparts.NodeModules(t), "node_modules"),
		"TOOLGATE="+bins.Toolgate, "GATEWAY_URL="+gw.URL)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testparts.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()

	const waiting = "no gateway answers at the URL yet; waiting for it"
	var run struct {
		Refused string
		Late    any
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var line struct {
			Step   string
			Result *json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("script printed %q: %v", sc.Text(), err)
		}
		switch {
		case line.Step == "start":
			for deadline := time.Now().Add(30 * time.Second); strings.Count(stderr.String(), waiting) < 2; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the second bridge did not say it waits for the gateway:\n%s", stderr)
				}
			}
			gw.StartAgain()
		case line.Result != nil:
			if err := json.Unmarshal(*line.Result, &run); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("script: %v\nstderr:\n%s", err, stderr)
	}
	for _, want := range []string{"cannot reach the gateway at " + gw.URL + " (connect: connection refused)", "is it running? Start it with `toolgate serve"} {
		if !strings.Contains(run.Refused, want) {
			t.Errorf("initialize with no gateway: %q lacks %q", run.Refused, want)
		}
	}
	if run.Late != float64(11) {
		t.Errorf("tools/list through a bridge that waited for the gateway: %v\nstderr:\n%s", run.Late, stderr)
	}
}
