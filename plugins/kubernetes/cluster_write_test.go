package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

const roundTripManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: rt
  labels: {app: rt}
spec:
  replicas: 1
  selector:
    matchLabels: {app: rt}
  template:
    metadata:
      labels: {app: rt}
    spec:
      containers:
      - name: app
        image: nginx:1.27
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: rt-config
data:
  owner: toolgate
`

// TestWriteRoundTrip: apply → get → patch (three types) → scale → restart
// → delete, each checked against the cluster itself.
func TestWriteRoundTrip(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	ctx := context.Background()
	p := c.adminPlugin(t, map[string]any{"namespace": ns, "read_only": false})
	deps, cms := c.typed.AppsV1().Deployments(ns), c.typed.CoreV1().ConfigMaps(ns)

	text, _ := p.ok("apply_manifest", map[string]any{"manifest": roundTripManifest, "dry_run": true})
	mustContain(t, text, "dry run")
	if _, err := deps.Get(ctx, "rt", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run apply created the deployment (get: %v)", err)
	}

	text, structured := p.ok("apply_manifest", map[string]any{"manifest": roundTripManifest})
	mustContain(t, text, "Deployment", "rt", "ConfigMap", "rt-config", "created")
	if applied, _ := structured["applied"].([]any); len(applied) != 2 {
		t.Errorf("applied = %v, want two objects", applied)
	}
	dep, err := deps.Get(ctx, "rt", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("deployment after apply: %v", err)
	}
	if owner := managerOf(dep.ManagedFields); owner != fieldManager {
		t.Errorf("field manager = %q, want %q", owner, fieldManager)
	}
	text, _ = p.ok("apply_manifest", map[string]any{"manifest": roundTripManifest})
	mustContain(t, text, "unchanged")

	text, _ = p.ok("get_resource", map[string]any{"kind": "deployment", "name": "rt"})
	mustContain(t, text, "image: nginx:1.27", "replicas: 1")

	p.ok("patch_resource", map[string]any{"kind": "deployment", "name": "rt", "patch": `{"metadata":{"labels":{"tier":"web"}}}`})
	text, _ = p.ok("patch_resource", map[string]any{"kind": "deployment", "name": "rt", "type": "strategic",
		"patch": "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.28\n"})
	mustContain(t, text, fmt.Sprintf(`Patched deployments.apps "rt" in namespace %q (strategic patch)`, ns))
	p.ok("patch_resource", map[string]any{"kind": "configmap", "name": "rt-config", "type": "json",
		"patch": `[{"op":"add","path":"/data/extra","value":"1"}]`})
	dep, _ = deps.Get(ctx, "rt", metav1.GetOptions{})
	if dep.Labels["tier"] != "web" || dep.Spec.Template.Spec.Containers[0].Image != "nginx:1.28" || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Errorf("after patches: labels %v, containers %+v", dep.Labels, dep.Spec.Template.Spec.Containers)
	}
	if cm, _ := cms.Get(ctx, "rt-config", metav1.GetOptions{}); cm.Data["extra"] != "1" {
		t.Errorf("json patch: configmap data = %v", cm.Data)
	}
	c.createWidget(t, ns, "w1", "large", nil)
	text = p.fail("patch_resource", map[string]any{"kind": "widget", "name": "w1", "type": "strategic", "patch": `{"spec":{"size":"small"}}`})
	mustContain(t, text, fmt.Sprintf(`patch widgets.example.com "w1" in namespace %q`, ns), "strategic merge patch works only for built-in kinds")

	text, _ = p.ok("scale_resource", map[string]any{"kind": "deployment", "name": "rt", "replicas": 3})
	mustContain(t, text, "from 1 to 3 replicas")
	if dep, _ = deps.Get(ctx, "rt", metav1.GetOptions{}); *dep.Spec.Replicas != 3 {
		t.Errorf("replicas after scale = %d, want 3", *dep.Spec.Replicas)
	}
	text, _ = p.ok("scale_resource", map[string]any{"kind": "wd", "name": "w1", "replicas": 0})
	mustContain(t, text, "from 1 to 0 replicas")
	mustContain(t, p.fail("scale_resource", map[string]any{"kind": "configmap", "name": "rt-config", "replicas": 2}), "no scale subresource")

	text, _ = p.ok("rollout_restart", map[string]any{"kind": "deployment", "name": "rt"})
	mustContain(t, text, "Restarted deployments.apps")
	if dep, _ = deps.Get(ctx, "rt", metav1.GetOptions{}); dep.Spec.Template.Annotations[restartedAtAnnotation] == "" {
		t.Errorf("rollout restart left no %s annotation", restartedAtAnnotation)
	}
	mustContain(t, p.fail("rollout_restart", map[string]any{"kind": "configmap", "name": "rt-config"}), "no rollout for this kind")

	// Without allow_destructive there is no delete tool at all.
	if _, err := p.b.CallTool(ctx, &protov1.CallRequest{Name: "delete_resource", Arguments: json.RawMessage(`{"kind":"deployment","name":"rt"}`)}, &plugintest.Events{}); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("delete_resource without allow_destructive: %v, want ErrNotFound", err)
	}

	d := c.adminPlugin(t, map[string]any{"namespace": ns, "read_only": false, "allow_destructive": true})
	text, _ = d.ok("delete_resource", map[string]any{"kind": "configmap", "name": "rt-config", "dry_run": true})
	mustContain(t, text, "dry run")
	if _, err := cms.Get(ctx, "rt-config", metav1.GetOptions{}); err != nil {
		t.Errorf("dry-run delete removed the configmap: %v", err)
	}
	text, _ = d.ok("delete_resource", map[string]any{"kind": "deployments", "name": "rt"})
	mustContain(t, text, fmt.Sprintf(`Deleted deployments.apps "rt" in namespace %q`, ns))
	if _, err := deps.Get(ctx, "rt", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("deployment after delete: %v, want not found", err)
	}
	mustContain(t, d.fail("get_resource", map[string]any{"kind": "deployment", "name": "rt"}), "not found")
	mustContain(t, d.fail("delete_resource", map[string]any{"kind": "deployment", "name": "rt"}), `delete deployments.apps "rt"`, "not found")
}

func managerOf(fields []metav1.ManagedFieldsEntry) string {
	for _, f := range fields {
		if f.Operation == metav1.ManagedFieldsOperationApply {
			return f.Manager
		}
	}
	return ""
}

// TestApplyConflict: a field another manager owns is not silently taken;
// the error names the object and the verb, and force takes it.
func TestApplyConflict(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	ctx := context.Background()
	other := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"shared"},"data":{"owner":"other"}}`)
	if _, err := c.typed.CoreV1().ConfigMaps(ns).Patch(ctx, "shared", types.ApplyPatchType, other,
		metav1.PatchOptions{FieldManager: "other-tool"}); err != nil {
		t.Fatal(err)
	}
	p := c.adminPlugin(t, map[string]any{"namespace": ns, "read_only": false})
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata: {owner: toolgate}\n"
	text := p.fail("apply_manifest", map[string]any{"manifest": manifest})
	mustContain(t, text, fmt.Sprintf(`apply configmaps "shared" in namespace %q: conflict`, ns), "force=true", `conflict with "other-tool"`, ".data.owner")

	p.ok("apply_manifest", map[string]any{"manifest": manifest, "force": true})
	if cm, _ := c.typed.CoreV1().ConfigMaps(ns).Get(ctx, "shared", metav1.GetOptions{}); cm.Data["owner"] != "toolgate" {
		t.Errorf("after forced apply owner = %q", cm.Data["owner"])
	}

	// Objects applied before the server refuses one are reported with it.
	force := true
	if _, err := c.typed.CoreV1().ConfigMaps(ns).Patch(ctx, "shared", types.ApplyPatchType, other,
		metav1.PatchOptions{FieldManager: "other-tool", Force: &force}); err != nil {
		t.Fatal(err)
	}
	text = p.fail("apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\n---\n" + manifest})
	mustContain(t, text, "conflict", "Applied before the failure", "first")
}

// TestReadOnlyRefusesWrites: under the default config no write tool exists
// and nothing reaches the cluster.
func TestReadOnlyRefusesWrites(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	p := c.adminPlugin(t, map[string]any{"namespace": ns})
	for _, name := range append(writeTools, "delete_resource") {
		if _, ok := toolNames(t, p.b)[name]; ok {
			t.Errorf("%s is listed under read_only", name)
		}
		args := json.RawMessage(`{"manifest":"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sneaky}\n","kind":"cm","name":"sneaky"}`)
		_, err := p.b.CallTool(context.Background(), &protov1.CallRequest{Name: name, Arguments: args}, &plugintest.Events{})
		if !errors.Is(err, protov1.ErrNotFound) {
			t.Errorf("call %s under read_only = %v, want ErrNotFound", name, err)
		}
	}
	if _, err := c.typed.CoreV1().ConfigMaps(ns).Get(context.Background(), "sneaky", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("configmap exists after refused writes: %v", err)
	}
}

// TestForbidden runs the plugin as a user RBAC grants nothing but discovery:
// each refusal names the verb, the object and RBAC.
func TestForbidden(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	c.createDeployment(t, ns, "web", nil)
	kubeconfig, err := c.userKubeconfig("nobody")
	if err != nil {
		t.Fatal(err)
	}
	p := pluginUnderTest{t: t, b: servePlugin(t, map[string]any{"kubeconfig": kubeconfig, "namespace": ns, "read_only": false, "allow_destructive": true})}

	for _, call := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_resources", map[string]any{"kind": "pods"}, fmt.Sprintf(`list pods in namespace %q: forbidden`, ns)},
		{"list_resources", map[string]any{"kind": "deploy", "all_namespaces": true}, `list deployments.apps in all namespaces: forbidden`},
		{"get_resource", map[string]any{"kind": "deployment", "name": "web"}, fmt.Sprintf(`get deployments.apps "web" in namespace %q: forbidden`, ns)},
		{"list_namespaces", nil, `list namespaces: forbidden`},
		{"apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"}, fmt.Sprintf(`apply configmaps "c" in namespace %q: forbidden`, ns)},
		{"delete_resource", map[string]any{"kind": "deployment", "name": "web"}, fmt.Sprintf(`delete deployments.apps "web" in namespace %q: forbidden`, ns)},
		{"get_pod_logs", map[string]any{"name": "p"}, fmt.Sprintf(`get pods "p" in namespace %q: forbidden`, ns)},
	} {
		text := p.fail(call.tool, call.args)
		mustContain(t, text, call.want, "RBAC", `User "nobody"`)
	}
	// Each refusal names the RBAC verb and role the call needs, which is not
	// always the tool's verb: server-side apply is a patch (and a create),
	// scaling patches the scale subresource, a cluster-scoped list needs a
	// ClusterRole.
	mustContain(t, p.fail("apply_manifest", map[string]any{"manifest": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"}),
		`ask a cluster admin for a Role granting "patch" (and "create" for a new object) on configmaps`)
	mustContain(t, p.fail("list_namespaces", nil), `ClusterRole granting "list" on namespaces`)
	if _, err := c.typed.RbacV1().Roles(ns).Create(context.Background(), &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "read-scale"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.typed.RbacV1().RoleBindings(ns).Create(context.Background(), &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read-scale"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "read-scale"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "nobody"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mustContain(t, p.fail("scale_resource", map[string]any{"kind": "deploy", "name": "web", "replicas": 3}),
		fmt.Sprintf(`patch deployments.apps/scale "web" in namespace %q: forbidden`, ns), `Role granting "patch" on deployments.apps/scale`,
		`User "nobody" cannot patch resource "deployments/scale"`)
	if _, err := c.typed.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{}); err != nil {
		t.Errorf("deployment after a forbidden delete: %v", err)
	}
	if _, err := c.typed.CoreV1().ConfigMaps(ns).Get(context.Background(), "c", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("configmap after a forbidden apply: %v", err)
	}
}

// TestApplyChecksEveryObjectFirst: a manifest whose later object names a
// kind the cluster does not serve, or one the config denies, changes
// nothing, and the answer says so.
func TestApplyChecksEveryObjectFirst(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	p := c.adminPlugin(t, map[string]any{"namespace": ns, "read_only": false, "denied_kinds": []string{"secrets"}})
	first := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\n---\n"
	for _, second := range []struct{ doc, want string }{
		{"apiVersion: v1\nkind: ConfgMap\nmetadata: {name: second}\n", "v1 ConfgMap is not served by this cluster; did you mean kind ConfigMap?"},
		{"apiVersion: v1\nkind: Secret\nmetadata: {name: second}\n", "denied_kinds"},
	} {
		mustContain(t, p.fail("apply_manifest", map[string]any{"manifest": first + second.doc}),
			second.want, "Nothing was applied: object 2 of 2 was refused before any was sent")
		if _, err := c.typed.CoreV1().ConfigMaps(ns).Get(context.Background(), "first", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("configmap of a refused manifest exists (get: %v)", err)
		}
	}
}

// TestInvalidPatchNamesTheReason: the API server quotes the whole patched
// object before saying what is wrong with it; the answer keeps the reason
// and stays short.
func TestInvalidPatchNamesTheReason(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	c.createDeployment(t, ns, "web", nil)
	p := c.adminPlugin(t, map[string]any{"namespace": ns, "read_only": false})
	text := p.fail("patch_resource", map[string]any{"kind": "deploy", "name": "web", "patch": `{"spec":{"replicas":"three"}}`})
	mustContain(t, text, fmt.Sprintf(`patch deployments.apps "web" in namespace %q: invalid`, ns), "cannot unmarshal string", "bytes left out")
	if len(text) > 1500 {
		t.Errorf("answer is %d bytes:\n%s", len(text), text)
	}
}
