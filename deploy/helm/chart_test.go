// Package helm tests the chart in deploy/helm/toolgate: it renders with the
// real helm, the rendered config loads as the gateway would load it, and a
// real kube-apiserver accepts every object in a server-side dry run.
package helm

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/internal/testparts"
)

const (
	release   = "gw"
	namespace = "toolgate-chart"
	chartDir  = "toolgate"
)

// object is one rendered manifest, as generic YAML.
type object map[string]any

func (o object) kind() string { s, _ := o["kind"].(string); return s }

// get walks a path of map keys and list indexes (ints).
func (o object) get(path ...any) any {
	var cur any = map[string]any(o)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil
			}
			cur = m[k]
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			cur = l[k]
		}
	}
	return cur
}

// render runs helm template and returns the manifests and the kinds in order.
func render(t *testing.T, valueFiles ...string) ([]byte, map[string]object) {
	t.Helper()
	args := []string{"template", release, chartDir, "--namespace", namespace}
	for _, f := range valueFiles {
		args = append(args, "--values", f)
	}
	cmd := exec.Command(testparts.Helm(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	objs := map[string]object{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		// Decoded as a plain map: into a named map type, yaml.v3 would make
		// every nested mapping that type too.
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("rendered YAML: %v\n%s", err, out)
		}
		if m == nil {
			continue
		}
		o := object(m)
		if _, dup := objs[o.kind()]; dup {
			t.Fatalf("two %s objects rendered", o.kind())
		}
		objs[o.kind()] = o
	}
	return out, objs
}

func kinds(objs map[string]object) []string {
	var out []string
	for k := range objs {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// loadConfig loads the ConfigMap's HCL the way `toolgate serve` does, with the
// environment the Deployment gives the container, and layers that
// environment over it (where a config that would serve the network
// unauthenticated is refused).
func loadConfig(t *testing.T, objs map[string]object, env map[string]string) *config.Config {
	t.Helper()
	hcl, _ := objs["ConfigMap"].get("data", "toolgate.hcl").(string)
	if hcl == "" {
		t.Fatal("the ConfigMap holds no toolgate.hcl")
	}
	path := filepath.Join(t.TempDir(), "toolgate.hcl")
	if err := os.WriteFile(path, []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	cfg, err := config.Load(path)
	if err == nil {
		err = cfg.Layer(nil)
	}
	if err != nil {
		t.Fatalf("the rendered config does not load: %v\n%s", err, hcl)
	}
	return cfg
}

// containerEnv is the Deployment's env names, in order.
func containerEnv(dep object) []string {
	var names []string
	list, _ := dep.get("spec", "template", "spec", "containers", 0, "env").([]any)
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			names = append(names, m["name"].(string))
		}
	}
	return names
}

func TestDefaultsRender(t *testing.T) {
	_, objs := render(t)
	if got, want := kinds(objs), []string{"ConfigMap", "Deployment", "Secret", "Service", "ServiceAccount"}; !slices.Equal(got, want) {
		t.Fatalf("rendered kinds %v, want %v", got, want)
	}
	dep := objs["Deployment"]
	checks := []struct {
		path []any
		want any
	}{
		{[]any{"spec", "replicas"}, 2},
		{[]any{"spec", "strategy", "type"}, "RollingUpdate"},
		{[]any{"spec", "strategy", "rollingUpdate", "maxUnavailable"}, 0},
		{[]any{"spec", "template", "spec", "securityContext", "runAsNonRoot"}, true},
		{[]any{"spec", "template", "spec", "containers", 0, "securityContext", "readOnlyRootFilesystem"}, true},
		{[]any{"spec", "template", "spec", "containers", 0, "securityContext", "allowPrivilegeEscalation"}, false},
		{[]any{"spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"}, "100m"},
		{[]any{"spec", "template", "spec", "containers", 0, "resources", "requests", "memory"}, "128Mi"},
		{[]any{"spec", "template", "spec", "containers", 0, "livenessProbe", "httpGet", "path"}, "/healthz"},
		{[]any{"spec", "template", "spec", "containers", 0, "startupProbe", "httpGet", "path"}, "/healthz"},
		{[]any{"spec", "template", "spec", "containers", 0, "readinessProbe", "httpGet", "path"}, "/readyz"},
		{[]any{"spec", "template", "spec", "containers", 0, "lifecycle", "preStop", "sleep", "seconds"}, 5},
		{[]any{"spec", "template", "metadata", "annotations", "prometheus.io/scrape"}, "true"},
		{[]any{"spec", "template", "metadata", "annotations", "prometheus.io/path"}, "/metrics"},
		{[]any{"spec", "template", "metadata", "annotations", "prometheus.io/port"}, "8700"},
		{[]any{"spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"}, 8700},
	}
	for _, c := range checks {
		if got := dep.get(c.path...); got != c.want {
			t.Errorf("Deployment %v = %#v, want %#v", c.path, got, c.want)
		}
	}
	if got, want := containerEnv(dep), []string{"POD_IP", "HOME", "TOOLGATE_TOKEN_0", "TOOLGATE_SESSION_KEY"}; !slices.Equal(got, want) {
		t.Errorf("container env %v, want %v", got, want)
	}

	// A token and a session key are generated when none is given.
	sec := objs["Secret"]
	for _, key := range []string{"token-0", "session-key"} {
		if v, _ := sec.get("data", key).(string); len(v) < 40 {
			t.Errorf("Secret data %s = %q, want a generated value", key, v)
		}
	}

	cfg := loadConfig(t, objs, map[string]string{"POD_IP": "10.244.1.7", "TOOLGATE_TOKEN_0": "generated"})
	if cfg.Listen.HTTP != "0.0.0.0:8700" {
		t.Errorf("listen.http = %q, want all interfaces in the pod", cfg.Listen.HTTP)
	}
	wantHosts := []string{"10.244.1.7", "gw-toolgate", "gw-toolgate.toolgate-chart", "gw-toolgate.toolgate-chart.svc", "gw-toolgate.toolgate-chart.svc.cluster.local"}
	if !slices.Equal(cfg.Listen.AllowedHosts, wantHosts) {
		t.Errorf("allowed_hosts = %v, want %v", cfg.Listen.AllowedHosts, wantHosts)
	}
	if !slices.Equal(cfg.Listen.Tokens, []string{"generated"}) || cfg.Listen.AllowUnauthenticated {
		t.Errorf("tokens = %v, allow_unauthenticated %v; want the one from the Secret, and no opt-in to serving without it", cfg.Listen.Tokens, cfg.Listen.AllowUnauthenticated)
	}
	if cfg.Gateway.ShutdownGrace != 25*time.Second || cfg.Gateway.StateDir != "/var/lib/toolgate" || !cfg.Listen.Metrics {
		t.Errorf("gateway = %+v, metrics %v; want shutdown_grace 25s, state_dir on the emptyDir, metrics on", cfg.Gateway, cfg.Listen.Metrics)
	}
	if cfg.Listen.SessionMaxAge != 24*time.Hour {
		t.Errorf("session_max_age %v, want 24h", cfg.Listen.SessionMaxAge)
	}
	// The generated session key is one the gateway takes from the env.
	data, _ := sec.get("data", "session-key").(string)
	key, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatalf("Secret data session-key is not base64: %v", err)
	}
	t.Setenv("TOOLGATE_SESSION_KEY", string(key))
	if err := cfg.Layer(nil); err != nil || len(cfg.Listen.SessionKeys) != 1 || len(cfg.Listen.SessionKeys[0]) != 32 {
		t.Errorf("the generated session key gives keys %d, %v; want one of 32 bytes", len(cfg.Listen.SessionKeys), err)
	}
}

func TestEveryOptionRenders(t *testing.T) {
	_, objs := render(t, "testdata/all-on.yaml")
	want := []string{"ConfigMap", "Deployment", "HorizontalPodAutoscaler", "Ingress", "PodDisruptionBudget", "Secret", "Service", "ServiceAccount", "ServiceMonitor"}
	if got := kinds(objs); !slices.Equal(got, want) {
		t.Fatalf("rendered kinds %v, want %v", got, want)
	}
	dep := objs["Deployment"]
	if r := dep.get("spec", "replicas"); r != nil {
		t.Errorf("Deployment replicas = %v with the HPA on, want unset so the HPA owns it", r)
	}
	if got, want := containerEnv(dep), []string{"POD_IP", "HOME", "TOOLGATE_TOKEN_0", "TOOLGATE_TOKEN_1", "TOOLGATE_SESSION_KEY", "NODE_OPTIONS"}; !slices.Equal(got, want) {
		t.Errorf("container env %v, want %v", got, want)
	}
	checks := []struct {
		kind string
		path []any
		want any
	}{
		{"HorizontalPodAutoscaler", []any{"spec", "maxReplicas"}, 12},
		{"HorizontalPodAutoscaler", []any{"spec", "metrics", 1, "resource", "name"}, "memory"},
		{"PodDisruptionBudget", []any{"spec", "maxUnavailable"}, 1},
		{"Ingress", []any{"spec", "ingressClassName"}, "nginx"},
		{"Ingress", []any{"spec", "rules", 0, "http", "paths", 0, "backend", "service", "name"}, "gw-toolgate"},
		{"Ingress", []any{"spec", "tls", 0, "secretName"}, "toolgate-tls"},
		{"ServiceAccount", []any{"automountServiceAccountToken"}, true},
		{"Deployment", []any{"spec", "template", "spec", "automountServiceAccountToken"}, true},
		{"Deployment", []any{"spec", "template", "metadata", "labels", "tier"}, "gateway"},
		{"Deployment", []any{"spec", "template", "spec", "imagePullSecrets", 0, "name"}, "registry"},
		{"Service", []any{"metadata", "annotations", "example.com/lb"}, "internal"},
		{"ServiceMonitor", []any{"metadata", "labels", "release"}, "kube-prometheus"},
		{"ServiceMonitor", []any{"spec", "endpoints", 0, "interval"}, "15s"},
		{"ServiceMonitor", []any{"spec", "endpoints", 0, "scrapeTimeout"}, "10s"},
		{"ServiceMonitor", []any{"spec", "endpoints", 0, "authorization", "credentials", "name"}, "gw-toolgate"},
		{"ServiceMonitor", []any{"spec", "endpoints", 0, "authorization", "credentials", "key"}, "token-1"},
	}
	for _, c := range checks {
		if got := objs[c.kind].get(c.path...); got != c.want {
			t.Errorf("%s %v = %#v, want %#v", c.kind, c.path, got, c.want)
		}
	}

	checkServiceMonitorTargets(t, objs)

	cfg := loadConfig(t, objs, map[string]string{"POD_IP": "fd00::17", "TOOLGATE_TOKEN_0": "a", "TOOLGATE_TOKEN_1": "b"})
	for _, h := range []string{"fd00::17", "toolgate.example.com", "gw.internal.example", "gw-toolgate.toolgate-chart.svc"} {
		if !slices.Contains(cfg.Listen.AllowedHosts, h) {
			t.Errorf("allowed_hosts %v lacks %q", cfg.Listen.AllowedHosts, h)
		}
	}
	if !slices.Equal(cfg.Listen.Tokens, []string{"a", "b"}) || !slices.Equal(cfg.Listen.AllowedOrigins, []string{"https://app.example.com"}) {
		t.Errorf("tokens %v, origins %v; want both tokens and the one origin", cfg.Listen.Tokens, cfg.Listen.AllowedOrigins)
	}
	if len(cfg.Plugins) != 1 || cfg.Plugins[0].Name != "everything" || !cfg.Plugins[0].AutoStart {
		t.Errorf("plugins = %+v, want the auto_start plugin from values", cfg.Plugins)
	}
	if cfg.Telemetry.OTLPEndpoint != "otel-collector.monitoring:4317" || cfg.Gateway.LogLevel != "debug" {
		t.Errorf("extraConfig or logLevel lost: otlp %q, log level %q", cfg.Telemetry.OTLPEndpoint, cfg.Gateway.LogLevel)
	}
	if cfg.Listen.SessionMaxAge != 8*time.Hour {
		t.Errorf("session_max_age %v, want gateway.sessionMaxAge 8h", cfg.Listen.SessionMaxAge)
	}
}

// checkServiceMonitorTargets checks that the ServiceMonitor finds what it
// scrapes: its selector picks the Service, its port is the Service's port
// name, and its token key is in the Secret.
func checkServiceMonitorTargets(t *testing.T, objs map[string]object) {
	t.Helper()
	sm, svc := objs["ServiceMonitor"], objs["Service"]
	selector, _ := sm.get("spec", "selector", "matchLabels").(map[string]any)
	labels, _ := svc.get("metadata", "labels").(map[string]any)
	if len(selector) == 0 {
		t.Error("the ServiceMonitor selects every Service: no matchLabels")
	}
	for k, v := range selector {
		if labels[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%v, which the Service's labels %v do not have", k, v, labels)
		}
	}
	if port, name := sm.get("spec", "endpoints", 0, "port"), svc.get("spec", "ports", 0, "name"); port != name {
		t.Errorf("the ServiceMonitor scrapes port %v, the Service's port is named %v", port, name)
	}
	key, _ := sm.get("spec", "endpoints", 0, "authorization", "credentials", "key").(string)
	if secret, ok := objs["Secret"]; ok && secret.get("data", key) == nil {
		t.Errorf("the ServiceMonitor sends the Secret's %q, which the Secret does not hold", key)
	}
}

func TestExistingSecretAndNoAuth(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.yaml")
	if err := os.WriteFile(existing, []byte("auth:\n  existingSecret: mine\n  tokenCount: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, objs := render(t, existing)
	if _, ok := objs["Secret"]; ok {
		t.Error("a Secret was rendered beside auth.existingSecret")
	}
	if ref := objs["Deployment"].get("spec", "template", "spec", "containers", 0, "env", 3, "valueFrom", "secretKeyRef"); ref == nil ||
		ref.(map[string]any)["name"] != "mine" || ref.(map[string]any)["key"] != "token-1" {
		t.Errorf("TOOLGATE_TOKEN_1 comes from %v, want key token-1 of Secret mine", ref)
	}

	open := filepath.Join(dir, "open.yaml")
	if err := os.WriteFile(open, []byte("auth:\n  enabled: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, objs = render(t, open)
	if got, want := containerEnv(objs["Deployment"]), []string{"POD_IP", "HOME", "TOOLGATE_SESSION_KEY"}; !slices.Equal(got, want) {
		t.Errorf("container env without auth %v, want %v", got, want)
	}
	// The gateway serves all interfaces without a token only when told to,
	// and says so at every start.
	cfg := loadConfig(t, objs, map[string]string{"POD_IP": "10.0.0.1"})
	if len(cfg.Listen.Tokens) != 0 || !cfg.Listen.AllowUnauthenticated {
		t.Errorf("tokens %v, allow_unauthenticated %v with auth off; want none, and the opt-in set", cfg.Listen.Tokens, cfg.Listen.AllowUnauthenticated)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "allow_unauthenticated is set") {
		t.Errorf("warnings with auth off %q, want the one that says anyone can call every tool", cfg.Warnings)
	}
}

// TestAPIServerAcceptsChart applies both renderings to a real kube-apiserver
// in a server-side dry run: schemas, defaults and validation all run there.
func TestAPIServerAcceptsChart(t *testing.T) {
	defaults, _ := render(t)
	allOn, _ := render(t, "testdata/all-on.yaml")
	kubectl := testparts.Kubectl(t)

	// The Prometheus Operator's own CRD, so the ServiceMonitor is checked
	// against its schema as a cluster running the operator would.
	env := &envtest.Environment{
		BinaryAssetsDirectory:    testparts.KubeAssets(t),
		CRDDirectoryPaths:        []string{testparts.ServiceMonitorCRDs(t)},
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	if _, err := env.Start(); err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop kube-apiserver: %v", err)
		}
	})
	user, err := env.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kcPath := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kcPath, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(stdin []byte, args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kcPath}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(nil, "create", "namespace", namespace)
	always := []string{"deployment.apps", "service", "configmap", "secret", "serviceaccount"}
	for _, r := range []struct {
		name      string
		manifests []byte
		kinds     []string
	}{
		{"defaults", defaults, always},
		{"every option", allOn, append(always, "ingress.networking.k8s.io", "horizontalpodautoscaler.autoscaling", "poddisruptionbudget.policy", "servicemonitor.monitoring.coreos.com")},
	} {
		name := r.name
		// Strict: a field the API does not know is an error, not a warning.
		out := run(r.manifests, "apply", "--dry-run=server", "--validate=strict", "--namespace", namespace, "-f", "-")
		for _, kind := range r.kinds {
			if !strings.Contains(out, kind+"/gw-toolgate created (server dry run)") {
				t.Errorf("%s: kubectl did not report %s created in the dry run:\n%s", name, kind, out)
			}
		}
		t.Logf("%s:\n%s", name, out)
	}

	// NOTES.txt renders only on install; a dry run against the same server
	// shows what an operator reads.
	for _, tc := range []struct {
		values []string
		want   []string
	}{
		{nil, []string{"port-forward svc/gw-toolgate", "get secret gw-toolgate -o jsonpath='{.data.token-0}'"}},
		{[]string{"--values", "testdata/all-on.yaml"}, []string{"https://toolgate.example.com/mcp", "get secret gw-toolgate"}},
	} {
		args := append([]string{"install", release, chartDir, "--namespace", namespace, "--kubeconfig", kcPath, "--dry-run=server"}, tc.values...)
		out, err := exec.Command(testparts.Helm(t), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		_, notes, _ := strings.Cut(string(out), "NOTES:")
		t.Logf("NOTES (values %v):%s", tc.values, notes)
		for _, w := range tc.want {
			if !strings.Contains(notes, w) {
				t.Errorf("NOTES (values %v) lack %q:\n%s", tc.values, w, notes)
			}
		}
	}

	// A real install, then an upgrade that changes a value: the generated
	// token and session key stay, so clients and sealed sessions survive.
	secret := func() string {
		return run(nil, "get", "secret", "--namespace", namespace, release+"-toolgate", "-o", "jsonpath={.data.token-0}/{.data.session-key}")
	}
	helm := func(args ...string) {
		t.Helper()
		args = append(args, "--namespace", namespace, "--kubeconfig", kcPath)
		if out, err := exec.Command(testparts.Helm(t), args...).CombinedOutput(); err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	helm("install", release, chartDir)
	installed := secret()
	if token, key, _ := strings.Cut(installed, "/"); token == "" || key == "" {
		t.Fatalf("installed Secret holds token-0 %q and session-key %q", token, key)
	}
	helm("upgrade", release, chartDir, "--set", "replicaCount=3")
	if upgraded := secret(); upgraded != installed {
		t.Errorf("the upgrade replaced the generated token and session key: %s, then %s", installed, upgraded)
	}
}

// podDisruptionBudget.maxUnavailable 0, which forbids voluntary evictions, is
// kept, not mistaken for unset and replaced by minAvailable.
func TestDisruptionBudgetMaxUnavailableZero(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		values   string
		key      string
		want     any
		notThere string
	}{
		{"podDisruptionBudget:\n  enabled: true\n  maxUnavailable: 0\n", "maxUnavailable", 0, "minAvailable"},
		{"podDisruptionBudget:\n  enabled: true\n  maxUnavailable: 25%\n", "maxUnavailable", "25%", "minAvailable"},
		{"podDisruptionBudget:\n  enabled: true\n", "minAvailable", 1, "maxUnavailable"},
	} {
		f := filepath.Join(dir, "pdb.yaml")
		if err := os.WriteFile(f, []byte(tc.values), 0o600); err != nil {
			t.Fatal(err)
		}
		_, objs := render(t, f)
		pdb := objs["PodDisruptionBudget"]
		if got := pdb.get("spec", tc.key); got != tc.want {
			t.Errorf("%s: spec.%s = %v, want %v", tc.values, tc.key, got, tc.want)
		}
		if got := pdb.get("spec", tc.notThere); got != nil {
			t.Errorf("%s: spec.%s = %v, want none", tc.values, tc.notThere, got)
		}
	}
}

// Settings of the gateway and listen blocks the chart has no value for (an
// audit log, say) go inside the blocks it writes: a second gateway block in
// extraConfig would not load.
func TestExtraGatewayAndListenSettings(t *testing.T) {
	f := filepath.Join(t.TempDir(), "extra.yaml")
	values := "gateway:\n  extraSettings: |\n    audit_log = \"/var/log/toolgate/audit.jsonl\"\n    max_call_timeout = \"15m\"\n" +
		"  extraListenSettings: |\n    max_sessions = 2000\n"
	if err := os.WriteFile(f, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	_, objs := render(t, f)
	cfg := loadConfig(t, objs, map[string]string{"POD_IP": "10.0.0.1", "TOOLGATE_TOKEN_0": "t", "TOOLGATE_SESSION_KEY": "c2Vzc2lvbi1rZXktZm9yLXRoZS1jaGFydC10ZXN0cyE="})
	if cfg.Gateway.AuditLog != "/var/log/toolgate/audit.jsonl" || cfg.Gateway.MaxCallTimeout != 15*time.Minute || cfg.Listen.MaxSessions != 2000 {
		t.Errorf("audit_log %q, max_call_timeout %v, max_sessions %d; want the extra settings", cfg.Gateway.AuditLog, cfg.Gateway.MaxCallTimeout, cfg.Listen.MaxSessions)
	}
	if cfg.Gateway.StateDir != "/var/lib/toolgate" || cfg.Listen.SessionMaxAge != 24*time.Hour {
		t.Errorf("state_dir %q, session_max_age %v: the chart's own settings are lost", cfg.Gateway.StateDir, cfg.Listen.SessionMaxAge)
	}
}

// A ServiceMonitor that could not scrape is refused at render time, naming
// the value at fault, instead of installing a target that fails with 401 or
// 404 in Prometheus.
func TestServiceMonitorRefusesWhatItCannotScrape(t *testing.T) {
	for _, tc := range []struct {
		set  []string
		want string
	}{
		{[]string{"serviceMonitor.tokenIndex=1"}, "serviceMonitor.tokenIndex 1 names no token: the Secret holds token-0 to token-0"},
		{[]string{"serviceMonitor.tokenIndex=-1", "auth.tokens={a,b}"}, "serviceMonitor.tokenIndex -1 names no token: the Secret holds token-0 to token-1"},
		{[]string{"gateway.metrics=false"}, "serviceMonitor.enabled needs gateway.metrics"},
	} {
		args := []string{"template", release, chartDir, "--set", "serviceMonitor.enabled=true"}
		for _, s := range tc.set {
			args = append(args, "--set", s)
		}
		out, err := exec.Command(testparts.Helm(t), args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("helm %s: err %v, output %s; want a refusal saying %q", strings.Join(args, " "), err, out, tc.want)
		}
	}
	// Three tokens from an existing Secret: token-2 is there.
	out, err := exec.Command(testparts.Helm(t), "template", release, chartDir, "--set", "serviceMonitor.enabled=true",
		"--set", "auth.existingSecret=mine", "--set", "auth.tokenCount=3", "--set", "serviceMonitor.tokenIndex=2").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "name: mine\n          key: token-2") {
		t.Errorf("existing Secret with three tokens, tokenIndex 2: err %v\n%s", err, out)
	}
}
