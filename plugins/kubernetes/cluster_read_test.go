package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

func TestNamespaces(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, map[string]string{"team": "blue"})
	p := c.adminPlugin(t, nil)

	text, _ := p.ok("list_namespaces", nil)
	mustContain(t, text, "NAME", "STATUS", "default", "kube-system", ns, "Active")

	text, structured := p.ok("list_namespaces", map[string]any{"label_selector": "team=blue"})
	if names := itemNames(structured); !slices.Equal(names, []string{ns}) {
		t.Errorf("namespaces with team=blue = %v, want [%s]\n%s", names, ns, text)
	}
}

func TestAPIResources(t *testing.T) {
	p := kubeCluster(t).adminPlugin(t, nil)
	text, _ := p.ok("list_api_resources", nil)
	mustContain(t, text, "deployments", "apps/v1", "widgets", "wd", "example.com/v1", "Widget")

	text, structured := p.ok("list_api_resources", map[string]any{"api_group": "example.com"})
	if res, _ := structured["resources"].([]any); len(res) != 1 {
		t.Errorf("kinds of example.com = %d, want only widgets:\n%s", len(res), text)
	}
	text, _ = p.ok("list_api_resources", map[string]any{"namespaced": false})
	mustContain(t, text, "namespaces", "nodes")
	mustNotContain(t, text, "configmaps")
}

// TestListSelectorsAndPaging pages through core, apps and custom kinds with
// a label selector: every matching object comes back exactly once.
func TestListSelectorsAndPaging(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	match := map[string]string{"set": "page"}
	for i := range 5 {
		c.createConfigMap(t, ns, fmt.Sprintf("cm-%d", i), match)
		c.createDeployment(t, ns, fmt.Sprintf("dep-%d", i), match)
		c.createWidget(t, ns, fmt.Sprintf("w-%d", i), "large", match)
	}
	c.createConfigMap(t, ns, "cm-other", nil)
	c.createDeployment(t, ns, "dep-other", nil)
	c.createWidget(t, ns, "w-other", "small", nil)
	p := c.adminPlugin(t, nil)

	for _, kind := range []string{"configmaps", "deploy", "widgets.example.com"} {
		t.Run(kind, func(t *testing.T) {
			p.t = t
			var got []string
			cont := ""
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatalf("paging did not end: %v", got)
				}
				text, structured := p.ok("list_resources", map[string]any{"kind": kind, "namespace": ns,
					"label_selector": "set=page", "limit": 2, "continue": cont})
				names := itemNames(structured)
				got = append(got, names...)
				cont, _ = structured["continue"].(string)
				if cont == "" {
					break
				}
				if len(names) != 2 || structured["truncated"] != true {
					t.Errorf("page of %v with continue token, want 2 items and truncated", names)
				}
				mustContain(t, text, "Showing 2", "continue=")
			}
			slices.Sort(got)
			if len(got) != 5 || slices.Contains(got, "cm-other") || slices.Contains(got, "dep-other") || slices.Contains(got, "w-other") {
				t.Errorf("paged %s = %v, want the 5 labeled ones", kind, got)
			}
		})
	}
	p.t = t

	text, structured := p.ok("list_resources", map[string]any{"kind": "cm", "namespace": ns, "field_selector": "metadata.name=cm-3"})
	if names := itemNames(structured); !slices.Equal(names, []string{"cm-3"}) {
		t.Errorf("field selector metadata.name=cm-3 = %v\n%s", names, text)
	}

	// The server's own columns: a CRD's printer column, a deployment's READY.
	text, _ = p.ok("list_resources", map[string]any{"kind": "wd", "namespace": ns, "label_selector": "set!=page"})
	mustContain(t, text, "NAME", "SIZE", "w-other", "small")
	text, _ = p.ok("list_resources", map[string]any{"kind": "Deployment", "namespace": ns, "label_selector": "set=page"})
	mustContain(t, text, "READY", "UP-TO-DATE", "dep-0")

	text, _ = p.ok("list_resources", map[string]any{"kind": "widget", "all_namespaces": true, "label_selector": "set=page", "limit": 1})
	mustContain(t, text, "NAMESPACE", ns)

	mustContain(t, p.fail("list_resources", map[string]any{"kind": "gizmos"}), `"gizmos" is not a kind`)
	// A selector or token the server cannot use is named as the cause.
	for _, bad := range []struct {
		arg, value, server string
	}{
		{"label_selector", "app in (web", "unable to parse requirement"},
		{"field_selector", "spec.color=red", `"spec.color" is not a known field selector`},
		{"continue", "not-a-token", "invalid continue token"},
	} {
		mustContain(t, p.fail("list_resources", map[string]any{"kind": "cm", "namespace": ns, bad.arg: bad.value}),
			fmt.Sprintf("list configmaps in namespace %q: bad request", ns), "label_selector, field_selector or continue token", bad.server)
	}
}

func TestMaxItemsTruncates(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	for i := range 4 {
		c.createConfigMap(t, ns, fmt.Sprintf("cm-%d", i), nil)
	}
	p := c.adminPlugin(t, map[string]any{"max_items": 3})
	text, structured := p.ok("list_resources", map[string]any{"kind": "configmaps", "namespace": ns, "limit": 50})
	if n := len(itemNames(structured)); n != 3 || structured["truncated"] != true {
		t.Errorf("max_items 3: %d items, truncated %v", n, structured["truncated"])
	}
	mustContain(t, text, "Showing 3 configmaps", "more exist", "continue=")
}

func TestGetStripsNoise(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	c.createDeployment(t, ns, "web", map[string]string{"app": "web"})
	p := c.adminPlugin(t, map[string]any{"namespace": ns})

	text, structured := p.ok("get_resource", map[string]any{"kind": "deployments.apps", "name": "web"})
	mustContain(t, text, "kind: Deployment", "name: web", "team: shop", "image: nginx:1.27")
	mustNotContain(t, text, "managedFields", lastApplied)
	if md, _ := structured["metadata"].(map[string]any); md == nil || md["managedFields"] != nil || md["uid"] == nil {
		t.Errorf("structured metadata = %v, want uid without managedFields", md)
	}
	var asYAML map[string]any
	if err := yaml.Unmarshal([]byte(text), &asYAML); err != nil || nestedString(asYAML, "spec", "template", "spec", "containers") != "" {
		t.Errorf("yaml output does not parse back: %v", err)
	}

	text, _ = p.ok("get_resource", map[string]any{"kind": "deploy", "name": "web", "output": "json"})
	var asJSON map[string]any
	if err := json.Unmarshal([]byte(text), &asJSON); err != nil || nestedString(asJSON, "metadata", "name") != "web" {
		t.Errorf("json output: %v\n%s", err, text)
	}
	mustNotContain(t, text, "managedFields")

	text = p.fail("get_resource", map[string]any{"kind": "deployment", "name": "nope"})
	mustContain(t, text, fmt.Sprintf(`get deployments.apps "nope" in namespace %q: not found`, ns))
}

func TestEventsAndDescribe(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	dep := c.createDeployment(t, ns, "web", nil)
	ctx := context.Background()
	dep.Status = appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, Conditions: []appsv1.DeploymentCondition{{
		Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse, Reason: "MinimumReplicasUnavailable",
		Message: "Deployment does not have minimum availability.", LastUpdateTime: metav1.Now(), LastTransitionTime: metav1.Now()}}}
	if _, err := c.typed.AppsV1().Deployments(ns).UpdateStatus(ctx, dep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, e := range []struct{ typ, reason, kind, name, msg string }{
		{"Warning", "FailedCreate", "Deployment", "web", "exceeded quota: pods"},
		{"Normal", "ScalingReplicaSet", "Deployment", "web", "Scaled up replica set web-1 to 1"},
		{"Warning", "BackOff", "Pod", "other-pod", "Back-off restarting failed container"},
	} {
		ev := &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("ev-%d", i), Namespace: ns},
			InvolvedObject: corev1.ObjectReference{Kind: e.kind, Name: e.name, Namespace: ns},
			Type:           e.typ, Reason: e.reason, Message: e.msg, Count: 2,
			FirstTimestamp: metav1.NewTime(now.Add(-time.Duration(10-i) * time.Minute)),
			LastTimestamp:  metav1.NewTime(now.Add(-time.Duration(5-i) * time.Minute)),
			Source:         corev1.EventSource{Component: "test"},
		}
		if e.kind == "Deployment" {
			ev.InvolvedObject.UID = dep.UID
			ev.InvolvedObject.APIVersion = "apps/v1"
		}
		if _, err := c.typed.CoreV1().Events(ns).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p := c.adminPlugin(t, map[string]any{"namespace": ns})

	text, structured := p.ok("list_events", nil)
	mustContain(t, text, "LAST SEEN", "FailedCreate", "ScalingReplicaSet", "BackOff", "Pod/other-pod", "(x2)")
	if evs, _ := structured["events"].([]any); len(evs) != 3 {
		t.Errorf("%d events, want 3", len(evs))
	}

	text, _ = p.ok("list_events", map[string]any{"type": "Warning"})
	mustContain(t, text, "FailedCreate", "BackOff")
	mustNotContain(t, text, "ScalingReplicaSet")

	text, _ = p.ok("list_events", map[string]any{"kind": "deploy", "name": "web", "type": "Warning"})
	mustContain(t, text, "FailedCreate")
	mustNotContain(t, text, "BackOff", "ScalingReplicaSet")

	text, structured = p.ok("list_events", map[string]any{"limit": 1})
	mustContain(t, text, "BackOff", "2 older ones left out")
	if structured["truncated"] != true {
		t.Errorf("limit 1 of 3 events not marked truncated")
	}

	text, structured = p.ok("describe_resource", map[string]any{"kind": "deployment", "name": "web"})
	mustContain(t, text, "Name:        web", "Kind:        Deployment (apps/v1)", "Replicas:    1 desired, 1 current, 0 ready",
		"Conditions:", "MinimumReplicasUnavailable", "Containers:", "nginx:1.27", "Events:", "FailedCreate", "ScalingReplicaSet")
	mustNotContain(t, text, "BackOff")
	if evs, _ := structured["events"].([]any); len(evs) != 2 {
		t.Errorf("describe carries %d events, want the deployment's 2", len(evs))
	}
}

func TestPodLogsNotAvailable(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	ctx := context.Background()
	for _, pod := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "pending"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "bound"}, Spec: corev1.PodSpec{NodeName: "ghost-node", Containers: []corev1.Container{{Name: "app", Image: "busybox"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "two"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}, {Name: "sidecar", Image: "busybox"}}}},
	} {
		if _, err := c.typed.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p := c.adminPlugin(t, map[string]any{"namespace": ns})

	text := p.fail("get_pod_logs", map[string]any{"name": "pending", "tail_lines": 10})
	mustContain(t, text, fmt.Sprintf("Logs of pod %s/pending (container app) are not available", ns), "not scheduled to a node")

	text = p.fail("get_pod_logs", map[string]any{"name": "bound", "since": "10m"})
	mustContain(t, text, fmt.Sprintf("Logs of pod %s/bound (container app) are not available", ns), `node "ghost-node"`)

	mustContain(t, p.fail("get_pod_logs", map[string]any{"name": "two"}), "several containers", "app, sidecar")
	mustContain(t, p.fail("get_pod_logs", map[string]any{"name": "two", "container": "db"}), `no container "db"`)
	mustContain(t, p.fail("get_pod_logs", map[string]any{"name": "two", "container": "sidecar", "previous": true}), "not available")
	mustContain(t, p.fail("get_pod_logs", map[string]any{"name": "gone"}), fmt.Sprintf(`get pods "gone" in namespace %q: not found`, ns))
}

func TestUnknownKindsAndVersions(t *testing.T) {
	p := kubeCluster(t).adminPlugin(t, nil)
	mustContain(t, p.fail("get_resource", map[string]any{"kind": "deplyoments", "name": "x"}),
		`"deplyoments" is not a kind this cluster serves`, "did you mean deployments.apps")
	mustContain(t, p.fail("list_resources", map[string]any{"kind": "pdos"}), `"pdos" is not a kind`, "did you mean pods")
	mustContain(t, p.fail("list_resources", map[string]any{"kind": "sevrices"}), "did you mean services")
	mustContain(t, p.fail("get_resource", map[string]any{"kind": "Deploymnet", "name": "x"}), "did you mean deployments.apps")
	mustContain(t, p.fail("list_resources", map[string]any{"kind": "deployments", "api_version": "apps/v9"}),
		`API version "apps/v9" is not served`)
	mustContain(t, p.fail("list_resources", map[string]any{"kind": "pods", "api_version": "apps/v1"}),
		`"pods" is not a kind apps/v1 serves`)
	text, _ := p.ok("list_resources", map[string]any{"kind": "deployments", "api_version": "apps/v1", "all_namespaces": true})
	mustContain(t, text, "NAMESPACE")
	// A CRD installed after the first lookup is found without a restart.
	mustContain(t, p.fail("list_resources", map[string]any{"kind": "gadgets"}), "not a kind")
	c := kubeCluster(t)
	crd := widgetCRD()
	crd.Name, crd.Spec.Names = "gadgets.example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"}
	crd.Spec.Versions[0].AdditionalPrinterColumns = nil
	if err := envtest.CreateCRDs(c.env.Config, []*apiextensionsv1.CustomResourceDefinition{crd}); err != nil {
		t.Fatal(err)
	}
	if err := envtest.WaitForCRDs(c.env.Config, []*apiextensionsv1.CustomResourceDefinition{crd}, envtest.CRDInstallOptions{MaxTime: 30 * time.Second, PollInterval: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	text, _ = p.ok("list_resources", map[string]any{"kind": "gadgets"})
	mustContain(t, text, "No gadgets.example.com found")
}

// TestDiscoveryIsNotThrottled: discovery asks for every group version at
// once, and the client-side rate limit lets all of those requests through
// without waiting (client-go's default of 10 at once held a first call for
// seconds on a control plane with two dozen group versions).
func TestDiscoveryIsNotThrottled(t *testing.T) {
	c := kubeCluster(t)
	conn, err := connect(Config{Kubeconfig: c.kubeconfig}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := newCluster(conn)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := cl.discovery.groups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	requests := 2 // /api and /apis
	for _, g := range groups {
		requests += len(g.Versions)
	}
	fresh, err := connect(Config{Kubeconfig: c.kubeconfig}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	limiter := fresh.rest.RateLimiter
	if limiter == nil { // what client-go builds when none is set
		limiter = flowcontrol.NewTokenBucketRateLimiter(rest.DefaultQPS, rest.DefaultBurst)
	}
	for i := range requests {
		if !limiter.TryAccept() {
			t.Fatalf("request %d of the %d of a discovery would wait for the client-side rate limiter", i+1, requests)
		}
	}
}
