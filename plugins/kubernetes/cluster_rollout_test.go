package kubernetes

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ownedReplicaSet records one revision of dep the way its controller would:
// no controller runs here, so the test writes what it would have written.
func (c *testCluster) ownedReplicaSet(t *testing.T, dep *appsv1.Deployment, rev int, image, cause string) {
	t.Helper()
	yes := true
	tmpl := *dep.Spec.Template.DeepCopy()
	tmpl.Labels = map[string]string{"app": dep.Name, "pod-template-hash": fmt.Sprintf("h%d", rev)}
	tmpl.Spec.Containers[0].Image = image
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", dep.Name, rev), Namespace: dep.Namespace,
		Annotations:     map[string]string{revisionAnnotation: fmt.Sprint(rev), changeCauseAnnotation: cause},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: dep.Name, UID: dep.UID, Controller: &yes}}},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels}, Template: tmpl}}
	if _, err := c.typed.AppsV1().ReplicaSets(dep.Namespace).Create(context.Background(), rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestRolloutStatusAndHistoryUnderReadOnly: both answer with the default
// (read-only) config, from faked controller state.
func TestRolloutStatusAndHistoryUnderReadOnly(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	ctx := context.Background()
	dep := c.createDeployment(t, ns, "web", nil)
	c.ownedReplicaSet(t, dep, 1, "nginx:1.26", "first")
	c.ownedReplicaSet(t, dep, 2, "nginx:1.27", "bump nginx")
	p := c.adminPlugin(t, map[string]any{"namespace": ns})

	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 2, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	dep, err := c.typed.AppsV1().Deployments(ns).UpdateStatus(ctx, dep, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text, structured := p.ok("rollout_status", map[string]any{"kind": "deploy", "name": "web"})
	mustContain(t, text, "1 old replicas are pending termination")
	if structured["done"] != false {
		t.Errorf("status = %v, want not done", structured)
	}
	dep.Status = appsv1.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1, ReadyReplicas: 1}
	if _, err := c.typed.AppsV1().Deployments(ns).UpdateStatus(ctx, dep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	text, structured = p.ok("rollout_status", map[string]any{"kind": "Deployment", "name": "web"})
	mustContain(t, text, "successfully rolled out")
	if structured["done"] != true {
		t.Errorf("status = %v, want done", structured)
	}

	text, structured = p.ok("rollout_history", map[string]any{"kind": "deployments", "name": "web"})
	mustContain(t, text, "REVISION", "CHANGE-CAUSE", "nginx:1.26", "first", "*2", "bump nginx")
	if revs, _ := structured["revisions"].([]any); len(revs) != 2 {
		t.Errorf("revisions = %v", structured["revisions"])
	}
	mustContain(t, p.fail("rollout_status", map[string]any{"kind": "configmap", "name": "web"}), "configmaps", "no rollout for this kind")
}

// TestRolloutWrites: undo puts revision 1's template back; pause and resume
// flip spec.paused; restart takes every spelling of the kind.
func TestRolloutWrites(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	ctx := context.Background()
	dep := c.createDeployment(t, ns, "web", nil)
	c.ownedReplicaSet(t, dep, 1, "nginx:1.26", "")
	c.ownedReplicaSet(t, dep, 2, "nginx:1.27", "")
	p := c.adminPlugin(t, map[string]any{"namespace": ns, "read_only": false})

	text, _ := p.ok("rollout_undo", map[string]any{"kind": "deploy", "name": "web"})
	mustContain(t, text, "back to revision 1", "nginx:1.26")
	got, err := c.typed.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil || got.Spec.Template.Spec.Containers[0].Image != "nginx:1.26" || got.Spec.Template.Labels["pod-template-hash"] != "" {
		t.Fatalf("after undo: %v, template %+v", err, got.Spec.Template)
	}
	mustContain(t, p.fail("rollout_undo", map[string]any{"kind": "deploy", "name": "web", "to_revision": 7}), "has no revision 7", "1, 2")

	p.ok("rollout_pause", map[string]any{"kind": "Deployment", "name": "web"})
	if got, _ := c.typed.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{}); !got.Spec.Paused {
		t.Fatal("rollout_pause did not pause")
	}
	mustContain(t, p.fail("rollout_restart", map[string]any{"kind": "deploy", "name": "web"}), "is paused", "rollout_resume")
	text, _ = p.ok("rollout_status", map[string]any{"kind": "deploy", "name": "web"})
	mustContain(t, text, "paused")
	p.ok("rollout_resume", map[string]any{"kind": "deployments.apps", "name": "web"})
	for _, kind := range []string{"deploy", "Deployment", "deployments", "deployments.apps"} {
		text, _ = p.ok("rollout_restart", map[string]any{"kind": kind, "name": "web"})
		mustContain(t, text, `Restarted deployments.apps "web"`)
	}
	mustContain(t, p.fail("rollout_pause", map[string]any{"kind": "ds", "name": "web"}), "daemonsets.apps", "deployments.apps")
}
