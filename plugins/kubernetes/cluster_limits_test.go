package kubernetes

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestConfigLimitsHoldOnEveryTool: with allowed_namespaces and denied_kinds
// set, every tool refuses what is outside them, naming the setting, and
// still serves what is inside.
func TestConfigLimitsHoldOnEveryTool(t *testing.T) {
	c := kubeCluster(t)
	inside := c.namespace(t, nil)
	outside := inside + "-out"
	if _, err := c.typed.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: outside}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.createConfigMap(t, outside, "cfg", nil)
	c.createConfigMap(t, inside, "cfg", nil)
	c.createDeployment(t, outside, "web", nil)
	p := c.adminPlugin(t, map[string]any{"namespace": inside, "read_only": false, "allow_destructive": true,
		"allowed_namespaces": []string{inside}, "denied_kinds": []string{"secrets", "widgets.example.com"}})

	outsideCalls := []struct {
		tool string
		args map[string]any
	}{
		{"list_resources", map[string]any{"kind": "cm", "namespace": outside}},
		{"list_resources", map[string]any{"kind": "cm", "all_namespaces": true}},
		{"get_resource", map[string]any{"kind": "cm", "name": "cfg", "namespace": outside}},
		{"describe_resource", map[string]any{"kind": "cm", "name": "cfg", "namespace": outside}},
		{"list_events", map[string]any{"namespace": outside}},
		{"list_events", map[string]any{"all_namespaces": true}},
		{"get_pod_logs", map[string]any{"name": "x", "namespace": outside}},
		{"rollout_status", map[string]any{"kind": "deploy", "name": "web", "namespace": outside}},
		{"rollout_history", map[string]any{"kind": "deploy", "name": "web", "namespace": outside}},
		{"apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-new}\n", "namespace": outside}},
		{"patch_resource", map[string]any{"kind": "cm", "name": "cfg", "namespace": outside, "patch": `{"data":{"a":"b"}}`}},
		{"scale_resource", map[string]any{"kind": "deploy", "name": "web", "namespace": outside, "replicas": 2}},
		{"rollout_restart", map[string]any{"kind": "deploy", "name": "web", "namespace": outside}},
		{"delete_resource", map[string]any{"kind": "cm", "name": "cfg", "namespace": outside}},
		// A Namespace object outside the list is out of reach too.
		{"get_resource", map[string]any{"kind": "namespace", "name": outside}},
		{"patch_resource", map[string]any{"kind": "ns", "name": outside, "patch": `{"metadata":{"labels":{"a":"b"}}}`}},
		{"apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: Namespace\nmetadata: {name: " + outside + "}\n"}},
		{"delete_resource", map[string]any{"kind": "namespaces", "name": outside}},
	}
	for _, call := range outsideCalls {
		mustContain(t, p.fail(call.tool, call.args), "allowed_namespaces", "not allowed by the plugin config")
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"list_resources", map[string]any{"kind": "secrets"}},
		{"get_resource", map[string]any{"kind": "Secret", "name": "any"}},
		{"describe_resource", map[string]any{"kind": "wd", "name": "any"}},
		{"list_events", map[string]any{"kind": "widget"}},
		{"apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"}},
		{"delete_resource", map[string]any{"kind": "secret", "name": "any"}},
		{"explain", map[string]any{"kind": "secrets"}},
	} {
		mustContain(t, p.fail(call.tool, call.args), "denied_kinds")
	}
	text, _ := p.ok("list_api_resources", nil)
	mustNotContain(t, text, "secrets", "widgets")
	text, _ = p.ok("get_resource", map[string]any{"kind": "cm", "name": "cfg"})
	mustContain(t, text, "name: cfg")
	if got, err := c.typed.CoreV1().Namespaces().Get(context.Background(), outside, metav1.GetOptions{}); err != nil || got.DeletionTimestamp != nil || len(got.Labels) > 1 {
		t.Errorf("namespace outside allowed_namespaces was changed: %v %v", got, err)
	}
	text, _ = p.ok("get_resource", map[string]any{"kind": "namespace", "name": inside})
	mustContain(t, text, "name: "+inside)
	text, _ = p.ok("list_resources", map[string]any{"kind": "nodes"})
	mustContain(t, text, "No nodes found")
	// A schema is in no namespace: allowed_namespaces does not stop explain.
	text, _ = p.ok("explain", map[string]any{"kind": "deploy", "field": "spec.replicas"})
	mustContain(t, text, "replicas")
}
