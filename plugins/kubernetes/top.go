package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// metricsGroupVersion is the resource metrics API metrics-server serves.
const metricsGroupVersion = "metrics.k8s.io/v1beta1"

// ErrMetricsNotServed marks a cluster without the resource metrics API.
var ErrMetricsNotServed = errors.New("metrics.k8s.io is not served")

type topArgs struct {
	contextArg
	Kind          string `json:"kind,omitempty" enum:"pods,nodes" description:"pods (default) or nodes."`
	Namespace     string `json:"namespace,omitempty" description:"Namespace of the pods; default the plugin's namespace."`
	AllNamespaces bool   `json:"all_namespaces,omitempty" description:"Pods of all namespaces."`
	LabelSelector string `json:"label_selector,omitempty" description:"Only objects whose labels match, e.g. app=web."`
	SortBy        string `json:"sort_by,omitempty" enum:"cpu,memory" description:"Order by CPU or memory use, highest first (default: by name)."`
}

func (a topArgs) namespaceArg() string { return a.Namespace }

// usage is one row of top's answer.
type usage struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	CPU       int64  `json:"cpuMillicores"`
	Memory    int64  `json:"memoryBytes"`
}

func (k *kube) top(ctx context.Context, in topArgs) (*plugin.Result, error) {
	kind := firstNonEmpty(in.Kind, "pods")
	r := resource{GVR: schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: kind},
		Kind: map[string]string{"pods": "PodMetrics", "nodes": "NodeMetrics"}[kind], Namespaced: kind == "pods"}
	ns := k.c.namespaceFor(r, in.Namespace)
	if in.AllNamespaces {
		ns = ""
	}
	t := targetOf("list", r, "", ns)
	if res := k.allowed(t, r); res != nil {
		return res, nil
	}
	// Uncached: the cache answers a missing group with an error of its own.
	if _, err := k.c.discovery.fetchResources(ctx, metricsGroupVersion); err != nil {
		if apierrors.IsNotFound(err) {
			return plugin.Errorf("top: %v: the cluster has no resource metrics API, so CPU and memory use are unknown. "+
				"Install metrics-server (or another provider of metrics.k8s.io), or ask Prometheus if it scrapes the kubelets", ErrMetricsNotServed), nil
		}
		return k.c.fail(t, err), nil
	}
	list, err := k.c.dynamic.Resource(r.GVR).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: in.LabelSelector, Limit: int64(k.s.maxItems)})
	if err != nil {
		return k.c.fail(t, err), nil
	}
	rows := []usage{}
	for _, item := range list.Items {
		u := usage{Name: item.GetName(), Namespace: item.GetNamespace()}
		if kind == "nodes" {
			u.CPU, u.Memory = quantities(nestedMap(item.Object, "usage"))
		} else {
			for _, c := range nestedSlice(item.Object, "containers") {
				m, _ := c.(map[string]any)
				cpu, mem := quantities(nestedMap(m, "usage"))
				u.CPU, u.Memory = u.CPU+cpu, u.Memory+mem
			}
		}
		rows = append(rows, u)
	}
	switch in.SortBy {
	case "cpu":
		slices.SortStableFunc(rows, func(a, b usage) int { return int(b.CPU - a.CPU) })
	case "memory":
		slices.SortStableFunc(rows, func(a, b usage) int { return int(b.Memory - a.Memory) })
	}
	ans := map[string]any{"kind": kind, "namespace": ns, "items": rows, "continue": list.GetContinue()}
	if len(rows) == 0 {
		return plugin.JSON(ans, fmt.Sprintf("No %s metrics found (metrics appear a minute after a pod starts).", kind))
	}
	headers := []string{"NAME", "CPU(cores)", "MEMORY(bytes)"}
	if ns == "" && r.Namespaced {
		headers = append([]string{"NAMESPACE"}, headers...)
	}
	table := make([][]string, len(rows))
	for i, u := range rows {
		row := []string{u.Name, fmt.Sprintf("%dm", u.CPU), fmt.Sprintf("%dMi", u.Memory>>20)}
		if ns == "" && r.Namespaced {
			row = append([]string{u.Namespace}, row...)
		}
		table[i] = row
	}
	text := renderTable(headers, table)
	if list.GetContinue() != "" {
		text += "\n\n" + pageNotice(len(rows), kind, list.GetContinue(), list.GetRemainingItemCount())
	}
	return plugin.JSON(ans, text)
}

// quantities reads cpu (as millicores) and memory (as bytes) from a usage map.
func quantities(m map[string]any) (cpu, mem int64) {
	if s, ok := m["cpu"].(string); ok {
		if q, err := kresource.ParseQuantity(s); err == nil {
			cpu = q.MilliValue()
		}
	}
	if s, ok := m["memory"].(string); ok {
		if q, err := kresource.ParseQuantity(s); err == nil {
			mem = q.Value()
		}
	}
	return cpu, mem
}
