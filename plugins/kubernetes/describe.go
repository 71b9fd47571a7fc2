package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// describeEvents is how many recent events a description carries.
const describeEvents = 10

type describeArgs struct {
	objectArgs
}

// description is describe_resource's structured answer.
type description struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Name       string            `json:"name"`
	Namespace  string            `json:"namespace,omitempty"`
	Created    time.Time         `json:"created"`
	Deleting   bool              `json:"deleting,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Owners     []string          `json:"owners,omitempty"`
	Status     []field           `json:"status,omitempty"`
	Conditions []condition       `json:"conditions,omitempty"`
	Containers []container       `json:"containers,omitempty"`
	Ports      []string          `json:"ports,omitempty"`
	Selector   string            `json:"selector,omitempty"`
	Endpoints  []string          `json:"endpoints,omitempty"`
	SecretKeys []field           `json:"secretKeys,omitempty"`
	Managed    []managedEntry    `json:"managedFields,omitempty"`
	Events     []eventInfo       `json:"events"`
}

type field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

func (k *kube) describeResource(ctx context.Context, in describeArgs) (*plugin.Result, error) {
	r, err := k.c.resolve(ctx, in.Kind, in.APIVersion)
	if err != nil {
		return k.c.fail(target{verb: "describe", resource: in.Kind, name: in.Name}, err), nil
	}
	ns := k.c.namespaceFor(r, in.Namespace)
	t := targetOf("get", r, in.Name, ns)
	if res := k.allowed(t, r); res != nil {
		return res, nil
	}
	obj, err := k.c.dynamic.Resource(r.GVR).Namespace(ns).Get(ctx, in.Name, metav1.GetOptions{})
	if err != nil {
		return k.c.fail(t, err), nil
	}
	d := summarize(obj)
	if d.Kind == "Service" && d.APIVersion == "v1" {
		d.Endpoints, err = k.c.endpoints(ctx, ns, d.Name)
		if err != nil {
			d.Status = append(d.Status, field{"Endpoints", "unavailable: " + k.c.fail(target{verb: "list", resource: "endpointslices.discovery.k8s.io", namespace: ns}, err).Content[0].Text})
		}
	}
	sel := fields.Set{"involvedObject.name": d.Name, "involvedObject.kind": d.Kind, "involvedObject.uid": string(obj.GetUID())}
	if ns != "" {
		sel["involvedObject.namespace"] = ns
	}
	d.Events, _, err = k.c.events(ctx, ns, sel, describeEvents)
	if err != nil {
		// The object itself was readable; say why events are missing and
		// still answer.
		d.Events = nil
		d.Status = append(d.Status, field{"Events", "unavailable: " + k.c.fail(target{verb: "list", resource: "events", namespace: ns}, err).Content[0].Text})
	}
	if d.Events == nil {
		d.Events = []eventInfo{}
	}
	return plugin.JSON(d, d.text(k.now()))
}

// summarize picks out what `kubectl describe` leads with, for any kind:
// identity, ownership, the usual status fields, conditions and containers.
func summarize(obj *unstructured.Unstructured) description {
	o := obj.Object
	d := description{Kind: obj.GetKind(), APIVersion: obj.GetAPIVersion(), Name: obj.GetName(), Namespace: obj.GetNamespace(),
		Created: obj.GetCreationTimestamp().Time, Deleting: obj.GetDeletionTimestamp() != nil, Labels: obj.GetLabels()}
	for _, or := range obj.GetOwnerReferences() {
		s := or.Kind + "/" + or.Name
		if or.Controller != nil && *or.Controller {
			s += " (controller)"
		}
		d.Owners = append(d.Owners, s)
	}
	for _, f := range []struct{ label, path string }{
		{"Phase", "status.phase"}, {"Reason", "status.reason"}, {"Message", "status.message"},
		{"Node", "spec.nodeName"}, {"Pod IP", "status.podIP"}, {"Type", "spec.type"}, {"Cluster IP", "spec.clusterIP"},
	} {
		if v := nestedString(o, strings.Split(f.path, ".")...); v != "" {
			d.Status = append(d.Status, field{f.label, v})
		}
	}
	if want, ok := nestedInt(o, "spec", "replicas"); ok {
		d.Status = append(d.Status, field{"Replicas", replicaSummary(o, want)})
	}
	for _, c := range nestedSlice(o, "status", "conditions") {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		d.Conditions = append(d.Conditions, condition{Type: nestedString(m, "type"), Status: nestedString(m, "status"),
			Reason: nestedString(m, "reason"), Message: nestedString(m, "message")})
	}
	d.Containers = containers(o)
	if d.Kind == "Service" && d.APIVersion == "v1" {
		d.Ports = servicePorts(o)
		sel := map[string]string{}
		for k, v := range nestedMap(o, "spec", "selector") {
			sel[k] = fmt.Sprint(v)
		}
		d.Selector = labelString(sel)
	}
	if isSecret(o) {
		d.SecretKeys = secretKeys(o)
	}
	d.Managed = managedSummary(obj.GetManagedFields())
	return d
}

// replicaSummary says how many replicas are wanted and how many exist. The
// built-in workloads leave a zero count out of their status, so for them a
// missing count is 0; a custom resource may track none of these counts, so
// for it a missing one is left out rather than shown as a false 0.
func replicaSummary(o map[string]any, want int64) string {
	parts := []string{fmt.Sprintf("%d desired", want)}
	apiVersion, _ := o["apiVersion"].(string)
	builtIn := apiVersion == "apps/v1" || apiVersion == "v1"
	for _, s := range []struct{ key, label string }{{"replicas", "current"}, {"readyReplicas", "ready"},
		{"availableReplicas", "available"}, {"updatedReplicas", "up-to-date"}} {
		n, ok := nestedInt(o, "status", s.key)
		if !ok && !builtIn {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, s.label))
	}
	return strings.Join(parts, ", ")
}

// text renders the description in kubectl describe's shape.
func (d description) text(now time.Time) string {
	var b strings.Builder
	line := func(label, value string) { fmt.Fprintf(&b, "%-12s %s\n", label+":", value) }
	line("Name", d.Name)
	if d.Namespace != "" {
		line("Namespace", d.Namespace)
	}
	line("Kind", fmt.Sprintf("%s (%s)", d.Kind, d.APIVersion))
	line("Created", fmt.Sprintf("%s ago (%s)", age(d.Created, now), d.Created.UTC().Format(time.RFC3339)))
	if d.Deleting {
		line("Deleting", "yes (deletion requested; waiting for finalizers or pods to stop)")
	}
	line("Labels", labelString(d.Labels))
	if len(d.Owners) > 0 {
		line("Owned by", strings.Join(d.Owners, ", "))
	}
	for _, f := range d.Status {
		line(f.Name, f.Value)
	}
	if len(d.Conditions) > 0 {
		rows := make([][]string, len(d.Conditions))
		for i, c := range d.Conditions {
			rows[i] = []string{c.Type, c.Status, c.Reason, c.Message}
		}
		b.WriteString("Conditions:\n" + indent(renderTable([]string{"TYPE", "STATUS", "REASON", "MESSAGE"}, rows)) + "\n")
	}
	if len(d.Ports) > 0 {
		line("Ports", strings.Join(d.Ports, ", "))
	}
	if d.Selector != "" {
		line("Selector", d.Selector)
	}
	// A failed endpoint lookup is already a status line; "<none>" would
	// contradict it.
	if d.Kind == "Service" && d.APIVersion == "v1" && !slices.ContainsFunc(d.Status, func(f field) bool { return f.Name == "Endpoints" }) {
		line("Endpoints", firstNonEmpty(strings.Join(d.Endpoints, ", "), "<none> (no ready pod matches the selector)"))
	}
	if len(d.SecretKeys) > 0 {
		b.WriteString("Data (values hidden):\n")
		for _, f := range d.SecretKeys {
			fmt.Fprintf(&b, "  %s: %s\n", f.Name, f.Value)
		}
	}
	if len(d.Containers) > 0 {
		b.WriteString(containersText(d.Containers))
	}
	if len(d.Managed) > 0 {
		b.WriteString(managedText(d.Managed, now))
	}
	switch {
	case slices.ContainsFunc(d.Status, func(f field) bool { return f.Name == "Events" }):
		// A failed event lookup is already a status line; "<none>" would
		// contradict it.
	case len(d.Events) == 0:
		b.WriteString("Events:      <none>")
	default:
		headers, rows := eventRows(d.Events, false, now)
		b.WriteString("Events:\n" + indent(renderTable(headers, rows)))
	}
	return strings.TrimRight(b.String(), "\n")
}

func nestedMap(obj map[string]any, path ...string) map[string]any {
	m, _ := nested(obj, path...).(map[string]any)
	return m
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
