package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// target names what a call worked on, so every failure can say
// "delete deployments.apps "web" in namespace "shop"" instead of a bare
// status code.
type target struct {
	verb      string // get, list, patch, delete, apply, scale, restart, read logs of
	resource  string // "pods", "deployments.apps"
	name      string // empty for lists
	namespace string // empty for cluster-scoped kinds or all namespaces
	allNS     bool   // a namespaced kind listed across all namespaces
}

// targetOf names a call on kind r; ns is empty for all namespaces.
func targetOf(verb string, r resource, name, ns string) target {
	return target{verb: verb, resource: r.GroupResource(), name: name, namespace: ns, allNS: r.Namespaced && ns == ""}
}

func (t target) String() string {
	s := t.verb + " " + t.resource
	if t.name != "" {
		s += fmt.Sprintf(" %q", t.name)
	}
	switch {
	case t.namespace != "":
		s += fmt.Sprintf(" in namespace %q", t.namespace)
	case t.allNS:
		s += " in all namespaces"
	}
	return s
}

// failureInfo is the structured side of a failed call.
type failureInfo struct {
	Verb      string `json:"verb"`
	Resource  string `json:"resource,omitempty"`
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Reason    string `json:"reason"`
	Code      int32  `json:"code,omitempty"`
	Server    string `json:"server,omitempty"`
	Message   string `json:"message"`
}

// fail turns err into a result the assistant can act on: what was attempted,
// on which object, and why the cluster said no.
func (c *cluster) fail(t target, err error) *plugin.Result {
	info := failureInfo{Verb: t.verb, Resource: t.resource, Name: t.name, Namespace: t.namespace}
	var text string
	var status apierrors.APIStatus
	switch {
	case errors.Is(err, ErrUnknownKind):
		info.Reason = "UnknownKind"
		text = fmt.Sprintf("%s: %v", t.verb, err)
	case errors.As(err, &status):
		st := status.Status()
		info.Reason, info.Code = string(st.Reason), st.Code
		text = fmt.Sprintf("%s: %s", t, statusExplanation(t, err))
		if st.Message != "" {
			text += "\nServer said: " + clipMiddle(st.Message, maxServerMessage)
		}
	case errors.Is(err, context.DeadlineExceeded):
		info.Reason, info.Server = "Timeout", c.server
		text = fmt.Sprintf("%s: the Kubernetes API server at %s did not answer in time: %v", t, c.server, err)
	default:
		info.Reason, info.Server = "Unreachable", c.server
		text = fmt.Sprintf("%s: cannot reach the Kubernetes API server at %s: %v", t, c.server, err)
	}
	info.Message = text
	res, jerr := plugin.JSON(map[string]any{"error": info}, text)
	if jerr != nil {
		return plugin.Errorf("%s", text)
	}
	res.IsError = true
	return res
}

// maxServerMessage bounds the server's own words in an answer. An invalid
// patch is answered with the whole patched object quoted, managed fields
// and all, before the reason at the end.
const maxServerMessage = 800

// clipMiddle keeps the start and the end of a long message, where the
// server names the object and the reason.
func clipMiddle(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	half := limit / 2
	head, tail := strings.ToValidUTF8(s[:half], ""), strings.ToValidUTF8(s[len(s)-half:], "")
	return fmt.Sprintf("%s … (%d bytes left out) … %s", head, len(s)-len(head)-len(tail), tail)
}

// statusExplanation says in plain words what an API status means for t.
func statusExplanation(t target, err error) string {
	switch {
	case apierrors.IsNotFound(err):
		return "not found"
	case apierrors.IsForbidden(err):
		// A Role grants only within its namespace: cluster-scoped kinds and
		// lists across namespaces need a ClusterRole.
		role := "Role"
		if t.namespace == "" {
			role = "ClusterRole"
		}
		return fmt.Sprintf("forbidden: the credentials this plugin uses are not allowed to %s %s here (RBAC); ask a cluster admin for a %s granting %s on %s",
			t.verb, t.resource, role, rbacVerb(t.verb), t.resource)
	case apierrors.IsUnauthorized(err):
		return "unauthorized: the API server rejected the credentials in the kubeconfig"
	case apierrors.IsConflict(err):
		if t.verb == "apply" {
			return "conflict: another field manager owns fields this manifest sets; pass force=true to take them over, or leave those fields out"
		}
		return "conflict: the object changed since it was read; read it again and retry"
	case apierrors.IsAlreadyExists(err):
		return "already exists"
	case apierrors.IsInvalid(err):
		return "invalid: the API server rejected the object"
	case apierrors.IsBadRequest(err) && t.verb == "list":
		return "bad request: the API server could not use the label_selector, field_selector or continue token of this call (its message says which)"
	case apierrors.IsUnsupportedMediaType(err):
		return "unsupported patch type for this kind (strategic merge patch works only for built-in kinds; use type=merge)"
	case apierrors.IsMethodNotSupported(err):
		return "this kind does not support that verb"
	case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return "the API server timed out"
	case apierrors.IsTooManyRequests(err):
		return "the API server is throttling requests; retry shortly"
	}
	if code := apierrors.ReasonForError(err); code != "" {
		return string(code)
	}
	return http.StatusText(int(statusCode(err)))
}

// rbacVerb names the RBAC verb a call needs: server-side apply is a patch,
// which creates a missing object only with "create" granted too.
func rbacVerb(verb string) string {
	if verb == "apply" {
		return `"patch" (and "create" for a new object)`
	}
	return fmt.Sprintf("%q", verb)
}

func statusCode(err error) int32 {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Code
	}
	return 0
}
