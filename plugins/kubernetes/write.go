package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// fieldManager is the name server-side apply records as owner of the fields
// this plugin sets, so they can be told apart from kubectl's and controllers'.
const fieldManager = "toolgate"

func dryRun(on bool) []string {
	if on {
		return []string{metav1.DryRunAll}
	}
	return nil
}

func dryRunNote(on bool) string {
	if on {
		return " (dry run: nothing was changed)"
	}
	return ""
}

type applyArgs struct {
	contextArg
	Manifest  string `json:"manifest" description:"YAML or JSON of one or more objects (documents separated by ---, or a List). Each needs apiVersion, kind and metadata.name."`
	Namespace string `json:"namespace,omitempty" description:"Namespace for namespaced objects that name none; default the plugin's namespace."`
	Force     bool   `json:"force,omitempty" description:"Take over fields another field manager owns instead of failing with a conflict."`
	DryRun    bool   `json:"dry_run,omitempty" description:"Validate and show the result without changing anything."`
}

func (a applyArgs) namespaceArg() string { return a.Namespace }

// appliedObject is one row of apply_manifest's answer.
type appliedObject struct {
	Kind      string         `json:"kind"`
	Name      string         `json:"name"`
	Namespace string         `json:"namespace,omitempty"`
	Result    string         `json:"result"` // created, configured, unchanged
	Object    map[string]any `json:"object"`
}

func (k *kube) apply(ctx context.Context, in applyArgs) (*plugin.Result, error) {
	objs, err := decodeManifest(in.Manifest)
	if err != nil {
		return plugin.Errorf("apply_manifest: %v", err), nil
	}
	// Every object is resolved and checked before the first is applied, so
	// a misspelt kind or a refused namespace in a later document leaves the
	// cluster as it was.
	planned := make([]resource, len(objs))
	for i, obj := range objs {
		if err := k.s.limits.checkNamed("apply_manifest", obj.GetNamespace()); err != nil {
			return plugin.Errorf("%v%s", err, nothingApplied(i, len(objs))), nil
		}
		r, err := k.c.resolveGVK(ctx, obj.GetAPIVersion(), obj.GetKind())
		if err != nil {
			return appendText(k.c.fail(target{verb: "apply", resource: obj.GetKind(), name: obj.GetName()}, err), nothingApplied(i, len(objs))), nil
		}
		ns := ""
		if r.Namespaced {
			if own := obj.GetNamespace(); own != "" && in.Namespace != "" && own != in.Namespace {
				return plugin.Errorf("apply %s %q: the manifest says namespace %q but namespace=%q was passed%s",
					r.GroupResource(), obj.GetName(), own, in.Namespace, nothingApplied(i, len(objs))), nil
			}
			ns = k.c.namespaceFor(r, firstNonEmpty(obj.GetNamespace(), in.Namespace))
		}
		obj.SetNamespace(ns)
		obj.SetManagedFields(nil)
		if res := k.allowed(targetOf("apply", r, obj.GetName(), ns), r); res != nil {
			return appendText(res, nothingApplied(i, len(objs))), nil
		}
		planned[i] = r
	}
	var done []appliedObject
	for i, obj := range objs {
		r, ns := planned[i], obj.GetNamespace()
		t := targetOf("apply", r, obj.GetName(), ns)
		client := k.c.dynamic.Resource(r.GVR).Namespace(ns)
		before, getErr := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
		out, err := client.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: fieldManager, Force: in.Force, DryRun: dryRun(in.DryRun)})
		if err != nil {
			return k.applyFailed(done, k.c.fail(t, err)), nil
		}
		result := "configured"
		switch {
		case apierrors.IsNotFound(getErr):
			result = "created"
		case getErr == nil && before.GetResourceVersion() == out.GetResourceVersion():
			result = "unchanged"
		}
		shown, _ := k.present(out.Object)
		done = append(done, appliedObject{Kind: out.GetKind(), Name: out.GetName(), Namespace: ns, Result: result, Object: shown})
	}
	return plugin.JSON(map[string]any{"applied": done, "dryRun": in.DryRun}, appliedTable(done)+dryRunNote(in.DryRun))
}

// nothingApplied tells, when a manifest of several objects is refused while
// it is checked, that none of them was applied.
func nothingApplied(i, of int) string {
	if of == 1 {
		return ""
	}
	return fmt.Sprintf("\n\nNothing was applied: object %d of %d was refused before any was sent.", i+1, of)
}

func appendText(res *plugin.Result, text string) *plugin.Result {
	if text != "" && len(res.Content) > 0 {
		res.Content[0].Text += text
	}
	return res
}

func appliedTable(done []appliedObject) string {
	rows := make([][]string, len(done))
	for i, d := range done {
		rows[i] = []string{d.Kind, d.Name, d.Namespace, d.Result}
	}
	return renderTable([]string{"KIND", "NAME", "NAMESPACE", "RESULT"}, rows)
}

// applyFailed reports a failure after some objects were already applied, so
// the assistant knows the cluster's state is partly changed.
func (k *kube) applyFailed(done []appliedObject, failure *plugin.Result) *plugin.Result {
	if len(done) == 0 {
		return failure
	}
	failure.Content[0].Text += "\n\nApplied before the failure:\n" + appliedTable(done)
	return failure
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

type patchArgs struct {
	objectArgs
	Patch  string `json:"patch" description:"The patch, as JSON or YAML: an object for merge and strategic patches, an array of operations for a JSON patch."`
	Type   string `json:"type,omitempty" enum:"merge,json,strategic" description:"Patch type (default merge). strategic merges lists by key and works only for built-in kinds."`
	DryRun bool   `json:"dry_run,omitempty" description:"Validate and show the result without changing anything."`
}

var patchTypes = map[string]types.PatchType{
	"":          types.MergePatchType,
	"merge":     types.MergePatchType,
	"json":      types.JSONPatchType,
	"strategic": types.StrategicMergePatchType,
}

func (k *kube) patch(ctx context.Context, in patchArgs) (*plugin.Result, error) {
	pt, ok := patchTypes[in.Type]
	if !ok {
		return plugin.Errorf("patch_resource: type must be merge, json or strategic, got %q", in.Type), nil
	}
	body, err := yaml.YAMLToJSON([]byte(in.Patch))
	if err != nil || !json.Valid(body) || len(strings.TrimSpace(in.Patch)) == 0 {
		return plugin.Errorf("patch_resource: patch is not valid JSON or YAML: %v", err), nil
	}
	r, err := k.c.resolve(ctx, in.Kind, in.APIVersion)
	if err != nil {
		return k.c.fail(target{verb: "patch", resource: in.Kind, name: in.Name}, err), nil
	}
	ns := k.c.namespaceFor(r, in.Namespace)
	t := targetOf("patch", r, in.Name, ns)
	if res := k.allowed(t, r); res != nil {
		return res, nil
	}
	out, err := k.c.dynamic.Resource(r.GVR).Namespace(ns).Patch(ctx, in.Name, pt, body,
		metav1.PatchOptions{FieldManager: fieldManager, DryRun: dryRun(in.DryRun)})
	if err != nil {
		return k.c.fail(t, err), nil
	}
	text := fmt.Sprintf("Patched %s %q", r.GroupResource(), in.Name)
	if ns != "" {
		text += fmt.Sprintf(" in namespace %q", ns)
	}
	text += fmt.Sprintf(" (%s patch); resourceVersion now %s.", firstNonEmpty(in.Type, "merge"), out.GetResourceVersion()) + dryRunNote(in.DryRun)
	shown, _ := k.present(out.Object)
	return plugin.JSON(shown, text)
}

type scaleArgs struct {
	contextArg
	Kind       string `json:"kind" description:"Kind with a scale subresource: deployment, statefulset, replicaset, or a custom resource that has one."`
	APIVersion string `json:"api_version,omitempty" description:"Group/version to use instead of the server's preferred one, e.g. apps/v1."`
	Name       string `json:"name" description:"Object name."`
	Namespace  string `json:"namespace,omitempty" description:"Namespace; default the plugin's namespace."`
	Replicas   int64  `json:"replicas" description:"Desired number of replicas (0 stops every pod)."`
}

func (a scaleArgs) namespaceArg() string { return a.Namespace }

func (k *kube) scale(ctx context.Context, in scaleArgs) (*plugin.Result, error) {
	if in.Replicas < 0 {
		return plugin.Errorf("scale_resource: replicas must be 0 or more, got %d", in.Replicas), nil
	}
	r, err := k.c.resolve(ctx, in.Kind, in.APIVersion)
	if err != nil {
		return k.c.fail(target{verb: "scale", resource: in.Kind, name: in.Name}, err), nil
	}
	ns := k.c.namespaceFor(r, in.Namespace)
	t := targetOf("patch", r, in.Name, ns)
	if res := k.allowed(t, r); res != nil {
		return res, nil
	}
	t.resource += "/scale"
	has, err := k.c.hasSubresource(ctx, r, "scale")
	if err != nil {
		return k.c.fail(t, err), nil
	}
	if !has {
		return plugin.Errorf("scale_resource: %s cannot be scaled (it has no scale subresource)", r.GroupResource()), nil
	}
	client := k.c.dynamic.Resource(r.GVR).Namespace(ns)
	before, err := client.Get(ctx, in.Name, metav1.GetOptions{}, "scale")
	if err != nil {
		t.verb = "get"
		return k.c.fail(t, err), nil
	}
	from, _ := nestedInt(before.Object, "spec", "replicas")
	body := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, in.Replicas)
	out, err := client.Patch(ctx, in.Name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: fieldManager}, "scale")
	if err != nil {
		return k.c.fail(t, err), nil
	}
	text := fmt.Sprintf("Scaled %s %q", r.GroupResource(), in.Name)
	if ns != "" {
		text += fmt.Sprintf(" in namespace %q", ns)
	}
	text += fmt.Sprintf(" from %d to %d replicas.", from, in.Replicas)
	return plugin.JSON(map[string]any{"kind": r.Kind, "name": in.Name, "namespace": ns, "from": from, "to": in.Replicas, "scale": out.Object}, text)
}

type deleteArgs struct {
	objectArgs
	Propagation string `json:"propagation,omitempty" enum:"background,foreground,orphan" description:"What happens to dependents such as a deployment's pods (default background: deleted after the object)."`
	DryRun      bool   `json:"dry_run,omitempty" description:"Validate without deleting anything."`
}

var propagations = map[string]metav1.DeletionPropagation{
	"":           metav1.DeletePropagationBackground,
	"background": metav1.DeletePropagationBackground,
	"foreground": metav1.DeletePropagationForeground,
	"orphan":     metav1.DeletePropagationOrphan,
}

func (k *kube) deleteResource(ctx context.Context, in deleteArgs) (*plugin.Result, error) {
	policy, ok := propagations[in.Propagation]
	if !ok {
		return plugin.Errorf("delete_resource: propagation must be background, foreground or orphan, got %q", in.Propagation), nil
	}
	r, err := k.c.resolve(ctx, in.Kind, in.APIVersion)
	if err != nil {
		return k.c.fail(target{verb: "delete", resource: in.Kind, name: in.Name}, err), nil
	}
	ns := k.c.namespaceFor(r, in.Namespace)
	t := targetOf("delete", r, in.Name, ns)
	if res := k.allowed(t, r); res != nil {
		return res, nil
	}
	if in.Name == "" {
		return plugin.Errorf("%s: name is required", t), nil
	}
	err = k.c.dynamic.Resource(r.GVR).Namespace(ns).Delete(ctx, in.Name, metav1.DeleteOptions{PropagationPolicy: &policy, DryRun: dryRun(in.DryRun)})
	if err != nil {
		return k.c.fail(t, err), nil
	}
	text := fmt.Sprintf("Deleted %s %q", r.GroupResource(), in.Name)
	if ns != "" {
		text += fmt.Sprintf(" in namespace %q", ns)
	}
	text += fmt.Sprintf(" (propagation %s).", strings.ToLower(string(policy))) + dryRunNote(in.DryRun)
	return plugin.JSON(map[string]any{"kind": r.Kind, "name": in.Name, "namespace": ns, "deleted": !in.DryRun, "dryRun": in.DryRun}, text)
}
