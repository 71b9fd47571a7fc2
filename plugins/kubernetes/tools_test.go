package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

var (
	readTools = []string{"list_contexts", "list_namespaces", "list_api_resources", "list_resources", "get_resource", "describe_resource",
		"list_events", "get_pod_logs", "rollout_status", "rollout_history", "top", "explain"}
	writeTools = []string{"apply_manifest", "patch_resource", "scale_resource", "rollout_restart", "rollout_undo", "rollout_pause", "rollout_resume"}
)

// TestToolsFollowConfig: tools the config does not allow are not there at
// all — not listed, and not callable by name.
func TestToolsFollowConfig(t *testing.T) {
	kubeconfig := writeFile(t, "kubeconfig", offlineKubeconfig)
	cases := []struct {
		name   string
		config map[string]any
		want   []string
	}{
		{"default is read-only", map[string]any{}, readTools},
		{"writes", map[string]any{"read_only": false}, append(slices.Clone(readTools), writeTools...)},
		{"writes and delete", map[string]any{"read_only": false, "allow_destructive": true},
			append(append(slices.Clone(readTools), writeTools...), "delete_resource")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.config["kubeconfig"] = kubeconfig
			b := servePlugin(t, tc.config)
			got := slices.Sorted(maps.Keys(toolNames(t, b)))
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Fatalf("tools = %v, want %v", got, want)
			}
			for _, name := range append(slices.Clone(writeTools), "delete_resource") {
				if slices.Contains(want, name) {
					continue
				}
				_, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: name, Arguments: json.RawMessage(`{}`)}, &plugintest.Events{})
				if !errors.Is(err, protov1.ErrNotFound) {
					t.Errorf("call %s under %v = %v, want ErrNotFound", name, tc.config, err)
				}
			}
		})
	}
}

func TestToolAnnotations(t *testing.T) {
	tools := toolsFor(&kube{s: settings{readOnly: false, allowDestructive: true}})
	for _, tool := range tools {
		a := tool.Def.Annotations
		switch name := tool.Def.Name; {
		case slices.Contains(readTools, name):
			if !a.IsReadOnly() || a.IsDestructive() {
				t.Errorf("%s: read-only %v destructive %v, want read-only", name, a.IsReadOnly(), a.IsDestructive())
			}
		case name == "rollout_restart" || name == "rollout_pause" || name == "rollout_resume":
			if a.IsReadOnly() || a.IsDestructive() {
				t.Errorf("%s: want a non-destructive write", name)
			}
		default:
			if a.IsReadOnly() || !a.IsDestructive() {
				t.Errorf("%s: want a destructive write", name)
			}
		}
		if tool.Def.Labels["category"] != "kubernetes" || tool.Def.Description == "" || tool.Def.Title == "" {
			t.Errorf("%s: labels %v, description %q, title %q", tool.Def.Name, tool.Def.Labels, tool.Def.Description, tool.Def.Title)
		}
		if !json.Valid(tool.Def.InputSchema) {
			t.Errorf("%s: input schema is not JSON", tool.Def.Name)
		}
	}
}

func TestUnconfiguredPlugin(t *testing.T) {
	b := plugintest.Serve(t, New(hclog.NewNullLogger()))
	if got := len(toolNames(t, b)); got != len(readTools) {
		t.Errorf("unconfigured plugin lists %d tools, want the %d read-only ones", got, len(readTools))
	}
	mustContain(t, mustFail(t, callTool(t, b, "list_namespaces", nil)), "not configured")
	info, err := b.GetInfo(context.Background())
	if err != nil || info.Name != "kubernetes" || !info.Capabilities.Tools {
		t.Errorf("GetInfo = %+v, %v", info, err)
	}
}

func TestListContextsHidesCredentials(t *testing.T) {
	b := servePlugin(t, map[string]any{"kubeconfig": writeFile(t, "kubeconfig", offlineKubeconfig), "context": "two"})
	res := callTool(t, b, "list_contexts", nil)
	text := mustSucceed(t, res)
	mustContain(t, text, "one", "two", "https://127.0.0.1:2", `default namespace "default"`)
	mustNotContain(t, text+string(res.StructuredContent), "s3cr3t-token")
	var got struct {
		Contexts []contextInfo `json:"contexts"`
	}
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
		t.Fatal(err)
	}
	for _, c := range got.Contexts {
		if c.InUse != (c.Name == "two") {
			t.Errorf("context %s in use = %v", c.Name, c.InUse)
		}
	}
}

// TestUnreachableClusterNamesServer runs every read tool against a server
// that is not there: each must say which URL it could not reach.
func TestUnreachableClusterNamesServer(t *testing.T) {
	b := servePlugin(t, map[string]any{"kubeconfig": writeFile(t, "kubeconfig", offlineKubeconfig), "timeout": "5s"})
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"list_namespaces", nil},
		{"list_api_resources", nil},
		{"list_resources", map[string]any{"kind": "pods"}},
		{"get_resource", map[string]any{"kind": "pods", "name": "x"}},
		{"describe_resource", map[string]any{"kind": "pods", "name": "x"}},
		{"list_events", nil},
		{"get_pod_logs", map[string]any{"name": "x"}},
	} {
		text := mustFail(t, callTool(t, b, call.tool, call.args))
		mustContain(t, text, "https://127.0.0.1:1")
	}
}

// TestPerCallContext routes a call to the context it names when the config
// allows it, and refuses any other, naming the allowed ones.
func TestPerCallContext(t *testing.T) {
	kubeconfig := writeFile(t, "kubeconfig", offlineKubeconfig)
	b := servePlugin(t, map[string]any{"kubeconfig": kubeconfig, "timeout": "5s", "allowed_contexts": []string{"two"}})
	for name, tool := range toolNames(t, b) {
		if name != "list_contexts" && !strings.Contains(string(tool.InputSchema), `"context"`) {
			t.Errorf("%s has no context argument: %s", name, tool.InputSchema)
		}
	}
	mustContain(t, mustFail(t, callTool(t, b, "list_resources", map[string]any{"kind": "pods"})), "https://127.0.0.1:1")
	mustContain(t, mustFail(t, callTool(t, b, "list_resources", map[string]any{"kind": "pods", "context": "one"})), "https://127.0.0.1:1")
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"list_resources", map[string]any{"kind": "pods", "context": "two"}},
		{"get_resource", map[string]any{"kind": "pods", "name": "x", "context": "two"}},
		{"list_events", map[string]any{"context": "two"}},
		{"get_pod_logs", map[string]any{"name": "x", "context": "two"}},
	} {
		mustContain(t, mustFail(t, callTool(t, b, call.tool, call.args)), "https://127.0.0.1:2")
	}
	mustContain(t, mustFail(t, callTool(t, b, "list_resources", map[string]any{"kind": "pods", "context": "three"})),
		`context "three": context not allowed`, `own context "one"`, "allowed_contexts of its config (two)")

	plain := servePlugin(t, map[string]any{"kubeconfig": kubeconfig})
	mustContain(t, mustFail(t, callTool(t, plain, "list_namespaces", map[string]any{"context": "two"})), "(none)")
	err := New(hclog.NewNullLogger()).Configure(context.Background(),
		json.RawMessage(`{"kubeconfig": "`+kubeconfig+`", "allowed_contexts": ["nope"]}`))
	var ce *protov1.ConfigError
	if !errors.As(err, &ce) || ce.Fields[0].Path != "allowed_contexts" {
		t.Errorf("unknown allowed context: %v", err)
	}
}
