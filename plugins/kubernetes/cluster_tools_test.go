package kubernetes

import (
	"context"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func TestExplainFromOpenAPI(t *testing.T) {
	p := kubeCluster(t).adminPlugin(t, nil)
	text, structured := p.ok("explain", map[string]any{"kind": "deploy", "field": "spec.strategy"})
	mustContain(t, text, "KIND:     Deployment", "VERSION:  apps/v1", "FIELD:    spec.strategy <DeploymentStrategy>",
		"rollingUpdate <RollingUpdateDeployment>", "type <string>")
	if structured["type"] != "DeploymentStrategy" {
		t.Errorf("structured = %v", structured)
	}
	text, _ = p.ok("explain", map[string]any{"kind": "pod", "field": "spec.containers"})
	mustContain(t, text, "FIELD:    spec.containers <[]Container>", "name <string> -required-", "image <string>")
	text, _ = p.ok("explain", map[string]any{"kind": "widgets.example.com", "field": "spec"})
	mustContain(t, text, "KIND:     Widget", "size <string>", "replicas <integer>")
	mustContain(t, p.fail("explain", map[string]any{"kind": "deploy", "field": "spec.strategie"}),
		`no field "strategie" under "spec"`, "strategy")
}

// TestTopSaysWhenMetricsAreNotServed, then serves metrics.k8s.io from a CRD
// shaped like metrics-server's answers and reads them.
func TestTopSaysWhenMetricsAreNotServed(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	p := c.adminPlugin(t, map[string]any{"namespace": ns})
	mustContain(t, p.fail("top", nil), "metrics.k8s.io is not served", "metrics-server")

	preserve := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "pods.metrics.k8s.io",
			Annotations: map[string]string{"api-approved.kubernetes.io": "unapproved, test double of metrics-server"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "metrics.k8s.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "pods", Singular: "podmetrics", Kind: "PodMetrics", ListKind: "PodMetricsList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1beta1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					XPreserveUnknownFields: &preserve}}}}},
	}
	crds := []*apiextensionsv1.CustomResourceDefinition{crd}
	if err := envtest.CreateCRDs(c.env.Config, crds); err != nil {
		t.Fatal(err)
	}
	if err := envtest.WaitForCRDs(c.env.Config, crds, envtest.CRDInstallOptions{MaxTime: 30 * time.Second, PollInterval: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	gvr := schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}
	for _, m := range []struct{ name, cpu, mem string }{{"api", "250m", "300Mi"}, {"worker", "1", "100Mi"}} {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
			"metadata": map[string]any{"name": m.name, "namespace": ns},
			"containers": []any{map[string]any{"name": "app", "usage": map[string]any{"cpu": m.cpu, "memory": m.mem}},
				map[string]any{"name": "sidecar", "usage": map[string]any{"cpu": "10m", "memory": "20Mi"}}}}}
		if _, err := c.dynamic.Resource(gvr).Namespace(ns).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p = c.adminPlugin(t, map[string]any{"namespace": ns})
	text, structured := p.ok("top", map[string]any{"sort_by": "cpu"})
	mustContain(t, text, "NAME     CPU(cores)   MEMORY(bytes)", "worker   1010m        120Mi", "api      260m         320Mi")
	if items, _ := structured["items"].([]any); len(items) != 2 || nestedString(items[0].(map[string]any), "name") != "worker" {
		t.Errorf("items = %v", structured["items"])
	}
}
