package kubernetes

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// ErrNotAllowed marks a call outside what the operator's config allows: a
// namespace not in allowed_namespaces, or a kind in denied_kinds. It is a
// second limit beside RBAC, one the assistant cannot talk its way around.
var ErrNotAllowed = errors.New("not allowed by the plugin config")

// limits are the operator's namespace allow-list and kind deny-list.
type limits struct {
	namespaces []string // empty: every namespace
	deniedKind []string // as written: "secrets", "Secret", "widgets.example.com"
}

// deniedKind reports the deny-list entry r matches, if any.
func (l limits) denies(r resource) (string, bool) {
	for _, entry := range l.deniedKind {
		name, group, pinned := strings.Cut(entry, ".")
		if r.matches(name) && (!pinned || strings.EqualFold(r.GVR.Group, group)) {
			return entry, true
		}
	}
	return "", false
}

// check refuses a call on kind r in namespace ns ("" with allNS for all
// namespaces). Cluster-scoped kinds pass the namespace check: they belong
// to no namespace, and denied_kinds is how to keep them out.
func (l limits) check(tool string, r resource, ns string, allNS bool) error {
	if err := l.checkKind(tool, r); err != nil {
		return err
	}
	return l.checkNamespace(tool, r.Namespaced, ns, allNS)
}

// checkKind refuses a kind in denied_kinds, for calls that name a kind but
// no namespace (explain reads a schema, not objects).
func (l limits) checkKind(tool string, r resource) error {
	if entry, ok := l.denies(r); ok {
		return fmt.Errorf("%s: kind %s is denied by the plugin's denied_kinds (entry %q): %w", tool, r.GroupResource(), entry, ErrNotAllowed)
	}
	return nil
}

func (l limits) checkNamespace(tool string, namespaced bool, ns string, allNS bool) error {
	if len(l.namespaces) == 0 || !namespaced {
		return nil
	}
	if allNS {
		return fmt.Errorf("%s: all namespaces cannot be read: this plugin may only use namespaces %s (allowed_namespaces); name one of them: %w",
			tool, strings.Join(l.namespaces, ", "), ErrNotAllowed)
	}
	if !slices.Contains(l.namespaces, ns) {
		return fmt.Errorf("%s: namespace %q is not in the plugin's allowed_namespaces (%s); use one of those: %w",
			tool, ns, strings.Join(l.namespaces, ", "), ErrNotAllowed)
	}
	return nil
}

// checkNamed refuses a namespace a call names outside allowed_namespaces,
// whatever its kind: it needs no discovery, so it holds while the API server
// is down. A cluster-scoped kind would ignore the namespace, but naming a
// forbidden one is a mistake worth reporting either way.
func (l limits) checkNamed(tool, ns string) error {
	if ns == "" {
		return nil
	}
	return l.checkNamespace(tool, true, ns, false)
}

// allowed checks a call against the limits; a refusal is the tool's answer.
// A Namespace object is the namespace it names: reading, changing or
// deleting one outside allowed_namespaces is refused like the objects in it.
func (k *kube) allowed(t target, r resource) *plugin.Result {
	err := k.s.limits.check(t.verb, r, t.namespace, t.allNS)
	if err == nil && r.GVR == namespaceGVR && t.name != "" {
		err = k.s.limits.checkNamed(t.verb, t.name)
	}
	if err != nil {
		return plugin.Errorf("%v", err)
	}
	return nil
}

var namespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
