package kubernetes

import (
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// lastApplied is kubectl's copy of the whole previous manifest: pure noise
// next to the object itself, and often larger than it.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// present readies an object for an answer: noise stripped, managed fields
// kept only when the operator asked for them, Secret values hidden. It
// reports whether it hid any.
func (k *kube) present(obj map[string]any) (map[string]any, bool) {
	hid := k.s.secrets.redact(obj)
	return strip(obj, k.s.showManagedFields), hid
}

// strip removes what makes an object long without telling a reader anything
// about it: managed fields (unless keepManaged), the last-applied copy,
// selfLink.
func strip(obj map[string]any, keepManaged bool) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if !keepManaged {
		delete(md, "managedFields")
	}
	delete(md, "selfLink")
	if ann, ok := md["annotations"].(map[string]any); ok {
		delete(ann, lastApplied)
		if len(ann) == 0 {
			delete(md, "annotations")
		}
	}
	return obj
}

// meta reads the identity of an object.
type meta struct {
	name, namespace, kind, apiVersion, uid string
	created                                time.Time
}

func metaOf(obj map[string]any) meta {
	u := unstructured.Unstructured{Object: obj}
	return meta{
		name: u.GetName(), namespace: u.GetNamespace(), kind: u.GetKind(),
		apiVersion: u.GetAPIVersion(), uid: string(u.GetUID()), created: u.GetCreationTimestamp().Time,
	}
}

// nested returns the value at path, or nil.
func nested(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func nestedString(obj map[string]any, path ...string) string {
	s, _ := nested(obj, path...).(string)
	return s
}

// nestedInt reads an integer that JSON decoding may have made a float64 or
// an int64.
func nestedInt(obj map[string]any, path ...string) (int64, bool) {
	switch v := nested(obj, path...).(type) {
	case int64:
		return v, true
	case float64:
		return int64(v), true
	case int:
		return int64(v), true
	}
	return 0, false
}

func nestedSlice(obj map[string]any, path ...string) []any {
	s, _ := nested(obj, path...).([]any)
	return s
}

// labelString renders labels as k=v,k=v in key order.
func labelString(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

// objectArgs names one object of any kind; the tools that act on one object
// embed it, so they describe it the same way.
type objectArgs struct {
	contextArg
	Kind       string `json:"kind" description:"Resource kind: plural, singular, Kind or short name (pods, Deployment, deploy, svc), optionally with its group (deployments.apps, widgets.example.com)."`
	APIVersion string `json:"api_version,omitempty" description:"Group/version to use instead of the server's preferred one, e.g. apps/v1 or example.com/v1alpha1."`
	Name       string `json:"name" description:"Object name."`
	Namespace  string `json:"namespace,omitempty" description:"Namespace of a namespaced kind; default the plugin's namespace. Ignored for cluster-scoped kinds."`
}

func (a objectArgs) namespaceArg() string { return a.Namespace }
