package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// restartedAtAnnotation is what `kubectl rollout restart` sets; using the same
// key keeps the two interchangeable.
const restartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// ErrNotRollable marks a kind that has no rollout: only deployments,
// statefulsets and daemonsets roll out pods (and only deployments pause).
var ErrNotRollable = errors.New("no rollout for this kind")

// rolloutArgs names the workload every rollout tool works on.
type rolloutArgs struct {
	contextArg
	Kind      string `json:"kind" description:"Workload kind: deployment, statefulset or daemonset, in any form kubectl takes (deploy, Deployment, deployments.apps, sts, ds)."`
	Name      string `json:"name" description:"Workload name."`
	Namespace string `json:"namespace,omitempty" description:"Namespace; default the plugin's namespace."`
}

func (a rolloutArgs) namespaceArg() string { return a.Namespace }

// workload resolves a rollout tool's kind and checks that it rolls out.
func (k *kube) workload(ctx context.Context, tool string, in rolloutArgs, allowed ...string) (resource, string, *plugin.Result) {
	r, err := k.c.resolve(ctx, in.Kind, "")
	if err != nil {
		return r, "", k.c.fail(target{verb: tool, resource: in.Kind, name: in.Name}, err)
	}
	if len(allowed) == 0 {
		allowed = []string{"deployments.apps", "statefulsets.apps", "daemonsets.apps"}
	}
	ok := false
	for _, a := range allowed {
		ok = ok || r.GroupResource() == a
	}
	if !ok {
		return r, "", plugin.Errorf("%s: kind %s: %v; kind must be one of %v", tool, r.GroupResource(), ErrNotRollable, allowed)
	}
	if in.Name == "" {
		return r, "", plugin.Errorf("%s: name is required (list_resources kind=%s lists them)", tool, r.GVR.Resource)
	}
	ns := k.c.namespaceFor(r, in.Namespace)
	if res := k.allowed(targetOf(tool, r, in.Name, ns), r); res != nil {
		return r, "", res
	}
	return r, ns, nil
}

func (k *kube) rolloutRestart(ctx context.Context, in rolloutArgs) (*plugin.Result, error) {
	r, ns, fail := k.workload(ctx, "rollout_restart", in)
	if fail != nil {
		return fail, nil
	}
	client := k.c.dynamic.Resource(r.GVR).Namespace(ns)
	obj, err := client.Get(ctx, in.Name, metav1.GetOptions{})
	if err != nil {
		return k.c.fail(targetOf("get", r, in.Name, ns), err), nil
	}
	if paused, _ := nested(obj.Object, "spec", "paused").(bool); paused {
		return plugin.Errorf("rollout_restart: %s %q in namespace %q is paused; resume it first with rollout_resume", r.GroupResource(), in.Name, ns), nil
	}
	now := k.now().UTC().Format("2006-01-02T15:04:05Z07:00")
	body, err := json.Marshal(map[string]any{"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
		"annotations": map[string]string{restartedAtAnnotation: now}}}}})
	if err != nil {
		return nil, err
	}
	out, err := client.Patch(ctx, in.Name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return k.c.fail(targetOf("patch", r, in.Name, ns), err), nil
	}
	text := fmt.Sprintf("Restarted %s %q in namespace %q: its pods are being replaced by a rolling update (restartedAt %s).",
		r.GroupResource(), in.Name, ns, now)
	return plugin.JSON(map[string]any{"kind": r.Kind, "name": in.Name, "namespace": ns, "restartedAt": now,
		"generation": out.GetGeneration()}, text)
}

// setPaused sets spec.paused, which only Deployments have: their
// controller stops rolling out template changes until resumed.
func (k *kube) setPaused(ctx context.Context, tool string, in rolloutArgs, paused bool) (*plugin.Result, error) {
	r, ns, fail := k.workload(ctx, tool, in, "deployments.apps")
	if fail != nil {
		return fail, nil
	}
	body := fmt.Appendf(nil, `{"spec":{"paused":%t}}`, paused)
	out, err := k.c.dynamic.Resource(r.GVR).Namespace(ns).Patch(ctx, in.Name, types.MergePatchType, body,
		metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return k.c.fail(targetOf("patch", r, in.Name, ns), err), nil
	}
	verb := "Resumed"
	if paused {
		verb = "Paused"
	}
	text := fmt.Sprintf("%s the rollout of %s %q in namespace %q.", verb, r.GroupResource(), in.Name, ns)
	if paused {
		text += " Template changes wait until rollout_resume."
	}
	return plugin.JSON(map[string]any{"kind": r.Kind, "name": in.Name, "namespace": ns, "paused": paused,
		"generation": out.GetGeneration()}, text)
}

func (k *kube) rolloutPause(ctx context.Context, in rolloutArgs) (*plugin.Result, error) {
	return k.setPaused(ctx, "rollout_pause", in, true)
}

func (k *kube) rolloutResume(ctx context.Context, in rolloutArgs) (*plugin.Result, error) {
	return k.setPaused(ctx, "rollout_resume", in, false)
}

type undoArgs struct {
	rolloutArgs
	ToRevision int64 `json:"to_revision,omitempty" description:"Revision to roll back to, as rollout_history lists them; default the one before the current."`
	DryRun     bool  `json:"dry_run,omitempty" description:"Show what would be rolled back without changing anything."`
}

// rolloutUndo puts a former revision's pod template back, as `kubectl
// rollout undo` does: a Deployment gets its ReplicaSet's template, a
// StatefulSet or DaemonSet its ControllerRevision's patch.
func (k *kube) rolloutUndo(ctx context.Context, in undoArgs) (*plugin.Result, error) {
	r, ns, revs, fail := k.workloadRevisions(ctx, "rollout_undo", in.rolloutArgs)
	if fail != nil {
		return fail, nil
	}
	current := int64(0)
	for _, rv := range revs {
		current = max(current, rv.Revision)
	}
	want := in.ToRevision
	if want == 0 {
		for _, rv := range revs {
			if rv.Revision < current && rv.Revision > want {
				want = rv.Revision
			}
		}
	}
	var pick *revision
	for i := range revs {
		if revs[i].Revision == want {
			pick = &revs[i]
		}
	}
	switch {
	case pick == nil && in.ToRevision == 0:
		return plugin.Errorf("rollout_undo: %s %q has no revision before the current one (%d); nothing to roll back to", r.GroupResource(), in.Name, current), nil
	case pick == nil:
		return plugin.Errorf("rollout_undo: %s %q has no revision %d; rollout_history lists %s", r.GroupResource(), in.Name, want, revisionList(revs)), nil
	case want == current:
		return plugin.Errorf("rollout_undo: revision %d is the current one of %s %q; pick an older one (rollout_history lists %s)", want, r.GroupResource(), in.Name, revisionList(revs)), nil
	}
	pt, body := types.StrategicMergePatchType, pick.patch
	var err error
	if r.GroupResource() == "deployments.apps" {
		pt = types.JSONPatchType
		body, err = json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/template", "value": pick.template}})
		if err != nil {
			return nil, err
		}
	}
	_, err = k.c.dynamic.Resource(r.GVR).Namespace(ns).Patch(ctx, in.Name, pt, body,
		metav1.PatchOptions{FieldManager: fieldManager, DryRun: dryRun(in.DryRun)})
	if err != nil {
		return k.c.fail(targetOf("patch", r, in.Name, ns), err), nil
	}
	text := fmt.Sprintf("Rolled %s %q in namespace %q back to revision %d (images %s); the controller rolls it out as a new revision.",
		r.GroupResource(), in.Name, ns, want, pick.Images) + dryRunNote(in.DryRun)
	return plugin.JSON(map[string]any{"kind": r.Kind, "name": in.Name, "namespace": ns, "toRevision": want,
		"fromRevision": current, "dryRun": in.DryRun}, text)
}

func revisionList(revs []revision) string {
	if len(revs) == 0 {
		return "none"
	}
	s := ""
	for i, rv := range revs {
		if i > 0 {
			s += ", "
		}
		s += strconv.FormatInt(rv.Revision, 10)
	}
	return s
}

// controllerRevisionOf reads a StatefulSet's or DaemonSet's revision.
func controllerRevisionOf(cr appsv1.ControllerRevision) revision {
	rv := revision{Revision: cr.Revision, Created: cr.CreationTimestamp.Time, patch: cr.Data.Raw,
		ChangeCause: cr.Annotations[changeCauseAnnotation]}
	var data map[string]any
	if json.Unmarshal(cr.Data.Raw, &data) == nil {
		rv.Images = imagesOf(nestedMap(data, "spec", "template"))
	}
	return rv
}
