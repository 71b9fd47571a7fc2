package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// Where a workload's revisions are kept.
var (
	replicaSetResource         = resource{GVR: appsv1.SchemeGroupVersion.WithResource("replicasets"), Namespaced: true}
	controllerRevisionResource = resource{GVR: appsv1.SchemeGroupVersion.WithResource("controllerrevisions"), Namespaced: true}
)

const (
	revisionAnnotation    = "deployment.kubernetes.io/revision"
	changeCauseAnnotation = "kubernetes.io/change-cause"
)

// revision is one entry of a workload's rollout history.
type revision struct {
	Revision    int64          `json:"revision"`
	ChangeCause string         `json:"changeCause,omitempty"`
	Images      string         `json:"images"`
	Created     time.Time      `json:"created"`
	Current     bool           `json:"current"`
	template    map[string]any // a Deployment's: its ReplicaSet's pod template
	patch       []byte         // a StatefulSet's or DaemonSet's: the ControllerRevision's data
}

// revisions lists what a workload can roll back to, oldest first: a
// Deployment's ReplicaSets, a StatefulSet's or DaemonSet's
// ControllerRevisions, those the workload controls.
func (c *cluster) revisions(ctx context.Context, r resource, obj *unstructured.Unstructured) ([]revision, error) {
	ns, uid := obj.GetNamespace(), obj.GetUID()
	owned := func(refs []metav1.OwnerReference) bool {
		for _, ref := range refs {
			if ref.UID == uid && ref.Controller != nil && *ref.Controller {
				return true
			}
		}
		return false
	}
	var out []revision
	if r.GroupResource() == "deployments.apps" {
		var rss appsv1.ReplicaSetList
		if err := getJSON(ctx, c.rest.Get().AbsPath(apiPath(replicaSetResource, ns)...), &rss); err != nil {
			return nil, err
		}
		for _, rs := range rss.Items {
			n, err := strconv.ParseInt(rs.Annotations[revisionAnnotation], 10, 64)
			if !owned(rs.OwnerReferences) || err != nil {
				continue
			}
			tmpl, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&rs.Spec.Template)
			if err != nil {
				return nil, err
			}
			// The hash label belongs to this ReplicaSet; the Deployment's
			// controller adds the right one to whatever template it gets.
			if labels := nestedMap(tmpl, "metadata", "labels"); labels != nil {
				delete(labels, "pod-template-hash")
			}
			out = append(out, revision{Revision: n, ChangeCause: rs.Annotations[changeCauseAnnotation],
				Images: imagesOf(tmpl), Created: rs.CreationTimestamp.Time, template: tmpl})
		}
	} else {
		var crs appsv1.ControllerRevisionList
		if err := getJSON(ctx, c.rest.Get().AbsPath(apiPath(controllerRevisionResource, ns)...), &crs); err != nil {
			return nil, err
		}
		for _, cr := range crs.Items {
			if owned(cr.OwnerReferences) {
				out = append(out, controllerRevisionOf(cr))
			}
		}
	}
	slices.SortFunc(out, func(a, b revision) int { return int(a.Revision - b.Revision) })
	if len(out) > 0 {
		out[len(out)-1].Current = true
	}
	return out, nil
}

// imagesOf lists a pod template's container images.
func imagesOf(tmpl map[string]any) string {
	var images []string
	for _, c := range nestedSlice(tmpl, "spec", "containers") {
		if m, ok := c.(map[string]any); ok {
			images = append(images, nestedString(m, "image"))
		}
	}
	return strings.Join(images, ",")
}

func (k *kube) rolloutHistory(ctx context.Context, in rolloutArgs) (*plugin.Result, error) {
	r, ns, revs, fail := k.workloadRevisions(ctx, "rollout_history", in)
	if fail != nil {
		return fail, nil
	}
	if revs == nil {
		revs = []revision{}
	}
	ans := map[string]any{"kind": r.Kind, "name": in.Name, "namespace": ns, "revisions": revs}
	if len(revs) == 0 {
		return plugin.JSON(ans, fmt.Sprintf("%s %q in namespace %q has no recorded revisions yet (its controller has not rolled it out).",
			r.GroupResource(), in.Name, ns))
	}
	rows := make([][]string, len(revs))
	now := k.now()
	for i, rv := range revs {
		mark := ""
		if rv.Current {
			mark = "*"
		}
		rows[i] = []string{mark + strconv.FormatInt(rv.Revision, 10), firstNonEmpty(rv.ChangeCause, "<none>"), rv.Images, age(rv.Created, now)}
	}
	text := fmt.Sprintf("Rollout history of %s %q in namespace %q (* current):\n", r.GroupResource(), in.Name, ns) +
		renderTable([]string{"REVISION", "CHANGE-CAUSE", "IMAGES", "AGE"}, rows)
	return plugin.JSON(ans, text)
}

// rolloutState is rollout_status' structured answer.
type rolloutState struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Done      bool   `json:"done"`
	Paused    bool   `json:"paused,omitempty"`
	Failed    bool   `json:"failed,omitempty"`
	Message   string `json:"message"`
}

func (k *kube) rolloutStatus(ctx context.Context, in rolloutArgs) (*plugin.Result, error) {
	r, ns, fail := k.workload(ctx, "rollout_status", in)
	if fail != nil {
		return fail, nil
	}
	obj, err := k.c.dynamic.Resource(r.GVR).Namespace(ns).Get(ctx, in.Name, metav1.GetOptions{})
	if err != nil {
		return k.c.fail(targetOf("get", r, in.Name, ns), err), nil
	}
	st := rolloutState{Kind: r.Kind, Name: in.Name, Namespace: ns}
	st.Done, st.Failed, st.Message = rolloutProgress(r.Kind, obj.Object)
	st.Paused, _ = nested(obj.Object, "spec", "paused").(bool)
	if st.Paused {
		st.Message += " The rollout is paused: template changes wait for rollout_resume."
	}
	return plugin.JSON(st, fmt.Sprintf("%s %q in namespace %q: %s", r.GroupResource(), in.Name, ns, st.Message))
}

// rolloutProgress judges a rollout the way `kubectl rollout status` does,
// from the workload's status alone.
func rolloutProgress(kind string, o map[string]any) (done, failed bool, msg string) {
	count := func(path ...string) int64 { n, _ := nestedInt(o, path...); return n }
	gen, observed := count("metadata", "generation"), count("status", "observedGeneration")
	if gen > observed {
		return false, false, fmt.Sprintf("waiting for the controller to observe the new spec (generation %d, observed %d).", gen, observed)
	}
	switch kind {
	case "Deployment":
		for _, c := range nestedSlice(o, "status", "conditions") {
			m, _ := c.(map[string]any)
			if nestedString(m, "type") == "Progressing" && nestedString(m, "reason") == "ProgressDeadlineExceeded" {
				return false, true, "rollout failed: it exceeded its progress deadline (" + nestedString(m, "message") + ")."
			}
		}
		want, ok := nestedInt(o, "spec", "replicas")
		if !ok {
			want = 1
		}
		updated, replicas, available := count("status", "updatedReplicas"), count("status", "replicas"), count("status", "availableReplicas")
		switch {
		case updated < want:
			return false, false, fmt.Sprintf("rolling out: %d of %d new replicas updated.", updated, want)
		case replicas > updated:
			return false, false, fmt.Sprintf("rolling out: %d old replicas are pending termination.", replicas-updated)
		case available < updated:
			return false, false, fmt.Sprintf("rolling out: %d of %d updated replicas are available.", available, updated)
		}
		return true, false, fmt.Sprintf("successfully rolled out (%d of %d replicas updated and available).", available, want)
	case "StatefulSet":
		want, ok := nestedInt(o, "spec", "replicas")
		if !ok {
			want = 1
		}
		ready, updated := count("status", "readyReplicas"), count("status", "updatedReplicas")
		switch {
		case ready < want:
			return false, false, fmt.Sprintf("rolling out: %d of %d pods ready.", ready, want)
		case nestedString(o, "status", "updateRevision") != nestedString(o, "status", "currentRevision"):
			return false, false, fmt.Sprintf("rolling out: %d of %d pods updated to revision %s.", updated, want, nestedString(o, "status", "updateRevision"))
		}
		return true, false, fmt.Sprintf("successfully rolled out (%d pods at revision %s).", ready, nestedString(o, "status", "currentRevision"))
	default: // DaemonSet
		desired, updated, available := count("status", "desiredNumberScheduled"), count("status", "updatedNumberScheduled"), count("status", "numberAvailable")
		switch {
		case updated < desired:
			return false, false, fmt.Sprintf("rolling out: %d of %d pods updated.", updated, desired)
		case available < desired:
			return false, false, fmt.Sprintf("rolling out: %d of %d updated pods available.", available, desired)
		}
		return true, false, fmt.Sprintf("successfully rolled out (%d of %d pods updated and available).", available, desired)
	}
}

// workloadRevisions finds the workload a rollout tool names and the revisions
// its controller keeps of it.
func (k *kube) workloadRevisions(ctx context.Context, tool string, in rolloutArgs) (resource, string, []revision, *plugin.Result) {
	r, ns, fail := k.workload(ctx, tool, in)
	if fail != nil {
		return r, ns, nil, fail
	}
	obj, err := k.c.dynamic.Resource(r.GVR).Namespace(ns).Get(ctx, in.Name, metav1.GetOptions{})
	if err != nil {
		return r, ns, nil, k.c.fail(targetOf("get", r, in.Name, ns), err)
	}
	revs, err := k.c.revisions(ctx, r, obj)
	if err != nil {
		return r, ns, nil, k.c.fail(target{verb: "list", resource: "revisions of " + r.GroupResource(), namespace: ns}, err)
	}
	return r, ns, revs, nil
}
