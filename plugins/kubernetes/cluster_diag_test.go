package kubernetes

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// everything is all a result carries: its text and its structured content.
func everything(t *testing.T, p pluginUnderTest, tool string, args map[string]any) string {
	t.Helper()
	res := callTool(t, p.b, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, args, textOf(res))
	}
	return textOf(res) + "\n" + string(res.StructuredContent)
}

// TestSecretsNeverReachTheModel reads, lists, describes, applies and patches
// Secrets through every tool that answers objects: no value, plain or
// base64, appears in any answer; only the Secret the operator named is shown.
func TestSecretsNeverReachTheModel(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	ctx := context.Background()
	const value, applied, patched, revealed = "hunter2-very-secret", "applied-secret-value", "patched-secret-value", "shown-on-purpose"
	for name, v := range map[string]string{"db": value, "shown": revealed} {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			Annotations: map[string]string{lastApplied: fmt.Sprintf(`{"data":{"password":%q}}`, base64.StdEncoding.EncodeToString([]byte(v)))}},
			Data: map[string][]byte{"password": []byte(v), "tls.crt": nil}}
		if _, err := c.typed.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p := c.adminPlugin(t, map[string]any{"namespace": ns, "read_only": false, "show_managed_fields": true,
		"reveal_secrets": []string{ns + "/shown"}})
	secretManifest := fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata: {name: new}\nstringData: {token: %s}\n", applied)

	var seen []string
	seen = append(seen,
		everything(t, p, "get_resource", map[string]any{"kind": "secret", "name": "db"}),
		everything(t, p, "get_resource", map[string]any{"kind": "secrets", "name": "db", "output": "json"}),
		everything(t, p, "list_resources", map[string]any{"kind": "secrets"}),
		everything(t, p, "list_resources", map[string]any{"kind": "Secret", "all_namespaces": true}),
		everything(t, p, "describe_resource", map[string]any{"kind": "secret", "name": "db"}),
		everything(t, p, "apply_manifest", map[string]any{"manifest": secretManifest, "dry_run": true}),
		everything(t, p, "apply_manifest", map[string]any{"manifest": secretManifest}),
		everything(t, p, "patch_resource", map[string]any{"kind": "secret", "name": "db",
			"patch": fmt.Sprintf(`{"stringData":{"extra":%q}}`, patched)}),
	)
	for _, answer := range seen {
		for _, secret := range []string{value, applied, patched} {
			mustNotContain(t, answer, secret, base64.StdEncoding.EncodeToString([]byte(secret)))
		}
	}
	get := seen[0]
	mustContain(t, get, "password: '<hidden: 19 bytes>'", "tls.crt: '<hidden: 0 bytes>'", secretNote)
	mustContain(t, seen[4], "Data (values hidden):", "password: 19 bytes")

	shown := everything(t, p, "get_resource", map[string]any{"kind": "secret", "name": "shown"})
	mustContain(t, shown, base64.StdEncoding.EncodeToString([]byte(revealed)))
	mustNotContain(t, shown, secretNote)
}

// TestDescribeCrashLoopingPod fakes a pod killed for memory and backing off,
// through the status subresource: describe names the last termination, the
// waiting reason and message, restarts, resources and probes.
func TestDescribeCrashLoopingPod(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "shop/api:2.1",
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: kresource.MustParse("100m"), corev1.ResourceMemory: kresource.MustParse("64Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: kresource.MustParse("128Mi")}},
		LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
			InitialDelaySeconds: 5, PeriodSeconds: 10, FailureThreshold: 3},
	}}}}
	pod, err := c.typed.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	finished := metav1.NewTime(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
		Name: "app", Image: "shop/api:2.1", RestartCount: 5,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: "back-off 2m40s restarting failed container=app"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137,
			StartedAt: finished, FinishedAt: finished}},
	}}}
	if _, err := c.typed.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := c.adminPlugin(t, map[string]any{"namespace": ns})
	text, structured := p.ok("describe_resource", map[string]any{"kind": "po", "name": "api"})
	mustContain(t, text, "Last state:  terminated: OOMKilled (exit code 137), finished 2026-11-24T10:00:00Z",
		"State:       waiting: CrashLoopBackOff (back-off 2m40s restarting failed container=app)",
		"Restarts:    5", "Requests:    cpu=100m, memory=64Mi", "Limits:      memory=128Mi",
		"Liveness:    http-get http://:8080/healthz delay=5s timeout=1s period=10s failure=3")
	cs, _ := structured["containers"].([]any)
	if len(cs) != 1 || !strings.Contains(nestedString(cs[0].(map[string]any), "lastState"), "OOMKilled") {
		t.Errorf("structured containers = %v", cs)
	}
}

// TestDescribeServiceAndCustomResource: a Service's ports, selector and
// endpoints; a custom resource's replicas without counts its status lacks;
// and who set which fields.
func TestDescribeServiceAndCustomResource(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	ctx := context.Background()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: corev1.ServiceSpec{
		Selector: map[string]string{"app": "web"},
		Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}}}}
	if _, err := c.typed.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	port, ready, notReady := int32(8080), true, false
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: ns,
		Labels: map[string]string{discoveryv1.LabelServiceName: "web"}}, AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
			{Addresses: []string{"10.1.0.6"}, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}}},
		Ports: []discoveryv1.EndpointPort{{Port: &port}}}
	if _, err := c.typed.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.createWidget(t, ns, "w1", "large", nil)
	c.createConfigMap(t, ns, "settings", nil)
	p := c.adminPlugin(t, map[string]any{"namespace": ns})

	text, _ := p.ok("describe_resource", map[string]any{"kind": "svc", "name": "web"})
	mustContain(t, text, "Ports:       http 80/TCP -> 8080", "Selector:    app=web", "Endpoints:   10.1.0.5:8080, 10.1.0.6:8080 (not ready)")

	text, _ = p.ok("describe_resource", map[string]any{"kind": "widget", "name": "w1"})
	mustContain(t, text, "Replicas:    1 desired")
	mustNotContain(t, text, "0 ready", "0 available", "0 current")

	text, structured := p.ok("describe_resource", map[string]any{"kind": "cm", "name": "settings"})
	mustContain(t, text, "Managed fields:", "set by kubernetes.test", "via Update: data.k")
	if m, _ := structured["managedFields"].([]any); len(m) == 0 {
		t.Errorf("no managedFields summary in %v", structured)
	}
	text, _ = p.ok("get_resource", map[string]any{"kind": "cm", "name": "settings"})
	mustNotContain(t, text, "managedFields")
	shown := c.adminPlugin(t, map[string]any{"namespace": ns, "show_managed_fields": true})
	text, _ = shown.ok("get_resource", map[string]any{"kind": "cm", "name": "settings"})
	mustContain(t, text, "managedFields:", "f:data:")
}

// TestListStructuredIsAsCompactAsTheText lists many configmaps: the
// structured answer has the table's columns, names and continue token, and
// not the objects.
func TestListStructuredIsAsCompactAsTheText(t *testing.T) {
	c := kubeCluster(t)
	ns := c.namespace(t, nil)
	for i := range 30 {
		c.createConfigMap(t, ns, fmt.Sprintf("cm-%02d", i), map[string]string{"app": "shop", "tier": "backend"})
	}
	p := c.adminPlugin(t, map[string]any{"namespace": ns})
	res := callTool(t, p.b, "list_resources", map[string]any{"kind": "configmaps", "limit": 25})
	text := mustSucceed(t, res)
	if len(res.StructuredContent) > len(text)*3/2 {
		t.Errorf("structured content is %d bytes for a %d-byte table:\n%s", len(res.StructuredContent), len(text), res.StructuredContent)
	}
	mustNotContain(t, string(res.StructuredContent), "managedFields", `"data"`, "creationTimestamp")
	mustContain(t, string(res.StructuredContent), `"columns":["NAME","DATA","AGE"]`, `["cm-00","1",`, `"continue":"`)
}
