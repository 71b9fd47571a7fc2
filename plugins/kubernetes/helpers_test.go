package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// offlineKubeconfig names two contexts whose servers nothing listens on:
// enough for everything that must work without a cluster.
const offlineKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
- name: c2
  cluster: {server: "https://127.0.0.1:2", insecure-skip-tls-verify: true}
contexts:
- name: one
  context: {cluster: c1, user: u1, namespace: team-a}
- name: two
  context: {cluster: c2, user: u1}
current-context: one
users:
- name: u1
  user: {token: s3cr3t-token}
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// servePlugin runs the plugin over the real gRPC path and configures it.
func servePlugin(t *testing.T, config map[string]any) protov1.Backend {
	t.Helper()
	b := plugintest.Serve(t, New(hclog.NewNullLogger()))
	raw, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Configure(context.Background(), raw); err != nil {
		t.Fatalf("configure %s: %v", raw, err)
	}
	return b
}

// callTool runs a tool and fails the test if the call itself (not the tool)
// failed.
func callTool(t *testing.T, b protov1.Backend, name string, args map[string]any) *protov1.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: name, Arguments: raw}, &plugintest.Events{})
	if err != nil {
		t.Fatalf("call %s(%s): %v", name, raw, err)
	}
	return res
}

func textOf(res *protov1.Result) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// mustSucceed returns the text of a result that must not be an error.
func mustSucceed(t *testing.T, res *protov1.Result) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool failed: %s", textOf(res))
	}
	return textOf(res)
}

// mustFail returns the text of a result that must be an error.
func mustFail(t *testing.T, res *protov1.Result) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("tool succeeded, want an error: %s", textOf(res))
	}
	return textOf(res)
}

func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func mustNotContain(t *testing.T, text string, bad ...string) {
	t.Helper()
	for _, w := range bad {
		if strings.Contains(text, w) {
			t.Errorf("text contains %q:\n%s", w, text)
		}
	}
}

func toolNames(t *testing.T, b protov1.Backend) map[string]protov1.Tool {
	t.Helper()
	tools, err := b.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]protov1.Tool{}
	for _, tool := range tools {
		out[tool.Name] = tool
	}
	return out
}

// pluginUnderTest is a configured plugin and the test using it.
type pluginUnderTest struct {
	t *testing.T
	b protov1.Backend
}

// ok calls a tool that must succeed and returns its text and structured
// content.
func (p pluginUnderTest) ok(tool string, args map[string]any) (string, map[string]any) {
	p.t.Helper()
	res := callTool(p.t, p.b, tool, args)
	text := mustSucceed(p.t, res)
	var structured map[string]any
	if len(res.StructuredContent) > 0 {
		if err := json.Unmarshal(res.StructuredContent, &structured); err != nil {
			p.t.Fatalf("%s: structured content: %v", tool, err)
		}
	}
	return text, structured
}

// fail calls a tool that must answer an error and returns its text.
func (p pluginUnderTest) fail(tool string, args map[string]any) string {
	p.t.Helper()
	return mustFail(p.t, callTool(p.t, p.b, tool, args))
}

// itemNames lists the NAME column of a list answer's rows.
func itemNames(structured map[string]any) []string {
	columns, _ := structured["columns"].([]any)
	col := slices.Index(columns, any("NAME"))
	rows, _ := structured["rows"].([]any)
	var names []string
	for _, r := range rows {
		cells, _ := r.([]any)
		if col >= 0 && col < len(cells) {
			names = append(names, fmt.Sprint(cells[col]))
		}
	}
	return names
}
