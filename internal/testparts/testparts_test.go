package testparts

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestRoot(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("home directory: %v", err)
	}
	tests := []struct {
		name string
		env  string
		want string
	}{
		{name: "set", env: "/srv/parts/", want: "/srv/parts"},
		{name: "empty means unset", env: "", want: filepath.Join(home, ".cache", "toolgate-test")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TOOLGATE_TEST_CACHE", tt.env)
			if got := Root(); got != tt.want {
				t.Errorf("Root() = %q, want %q", got, tt.want)
			}
		})
	}
}

// scriptValue reads NAME=value from one of the installer scripts, so the
// layout this package assumes cannot drift from the one the scripts create.
func scriptValue(t *testing.T, script, name string) string {
	t.Helper()
	text := readScript(t, script)
	m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s: no line %s=...", script, name)
	}
	return m[1]
}

func readScript(t *testing.T, script string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "scripts", script))
	if err != nil {
		t.Fatalf("read installer script: %v", err)
	}
	return string(b)
}

func TestLayoutMatchesScripts(t *testing.T) {
	checks := []struct{ script, name, want string }{
		{"install-node-parts.sh", "NODE_KEY", nodeKey},
		{"install-conformance.sh", "CONFORMANCE_KEY", conformanceKey},
		{"build-kube.sh", "KUBE_VERSION", kubeVersion},
		{"build-kube.sh", "ETCD_VERSION", etcdVersion},
		{"install-helm.sh", "HELM_VERSION", helmVersion},
		{"install-crds.sh", "OPERATOR_VERSION", promOperatorVersion},
	}
	for _, c := range checks {
		if got := scriptValue(t, c.script, c.name); got != c.want {
			t.Errorf("%s sets %s=%s, this package expects %s", c.script, c.name, got, c.want)
		}
	}
}

// nodePins returns the name -> exact version pins of install-node-parts.sh.
func nodePins(t *testing.T) map[string]string {
	t.Helper()
	block := regexp.MustCompile(`(?s)\nPACKAGES=\((.*?)\n\)`).FindStringSubmatch(readScript(t, "install-node-parts.sh"))
	if block == nil {
		t.Fatal("install-node-parts.sh: no PACKAGES=( ... ) block")
	}
	pins := map[string]string{}
	for _, spec := range strings.Fields(block[1]) {
		at := strings.LastIndex(spec, "@")
		if at <= 0 {
			t.Fatalf("install-node-parts.sh: %q is not name@version", spec)
		}
		pins[spec[:at]] = spec[at+1:]
	}
	return pins
}

func TestConformance(t *testing.T) {
	node, suite := Conformance(t)
	for _, p := range []string{node, suite} {
		if !filepath.IsAbs(p) {
			t.Errorf("Conformance() gave %q, want an absolute path", p)
		}
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "v22.") {
		t.Errorf("%s --version = %q, %v; want v22", node, out, err)
	}
}

func TestNodeParts(t *testing.T) {
	prefix := NodeModules(t)
	if !filepath.IsAbs(prefix) {
		t.Errorf("NodeModules() = %q, want an absolute path", prefix)
	}
	pins := nodePins(t)
	if len(pins) != 7 {
		t.Errorf("install-node-parts.sh pins %d packages, want 7: %v", len(pins), pins)
	}
	for name, want := range pins {
		b, err := os.ReadFile(filepath.Join(prefix, "node_modules", name, "package.json"))
		if err != nil {
			t.Errorf("package %s: %v", name, err)
			continue
		}
		var pkg struct{ Version string }
		if err := json.Unmarshal(b, &pkg); err != nil {
			t.Errorf("package %s: parse package.json: %v", name, err)
			continue
		}
		if pkg.Version != want {
			t.Errorf("package %s is version %s, install-node-parts.sh pins %s", name, pkg.Version, want)
		}
	}
	for _, name := range []string{"mcp-server-everything", "mcp-server-filesystem", "mcp-server-memory", "mcp-server-sequential-thinking"} {
		want := filepath.Join(prefix, "node_modules", ".bin", name)
		if got := NodeBin(t, name); got != want {
			t.Errorf("NodeBin(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestKubeAssets(t *testing.T) {
	dir := KubeAssets(t)
	if want := filepath.Join(Root(), "kube-"+kubeVersion, "bin"); dir != want {
		t.Errorf("KubeAssets() = %q, want %q", dir, want)
	}
	versions := []struct{ bin, want string }{
		{"kube-apiserver", "Kubernetes v" + kubeVersion},
		{"etcd", "etcd Version: " + etcdVersion},
	}
	for _, v := range versions {
		out, err := exec.Command(filepath.Join(dir, v.bin), "--version").CombinedOutput()
		if err != nil {
			t.Errorf("%s --version: %v\n%s", v.bin, err, out)
			continue
		}
		if !strings.Contains(string(out), v.want) {
			t.Errorf("%s --version printed %q, want it to contain %q", v.bin, out, v.want)
		}
	}
}

func TestPrometheus(t *testing.T) {
	prom, promtool := Prometheus(t)
	for _, bin := range []string{prom, promtool} {
		if !filepath.IsAbs(bin) {
			t.Errorf("Prometheus() returned %q, want an absolute path", bin)
		}
		out, err := exec.Command(bin, "--version").CombinedOutput()
		if err != nil {
			t.Errorf("%s --version: %v\n%s", bin, err, out)
			continue
		}
		if want := filepath.Base(bin) + ", version "; !strings.Contains(string(out), want) {
			t.Errorf("%s --version printed %q, want it to contain %q", bin, out, want)
		}
	}
}

// fatalRecorder records Fatalf instead of ending the test, so the helpers'
// failure messages can be checked.
type fatalRecorder struct {
	testing.TB
	fatals []string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func TestMissingPartsAreFatal(t *testing.T) {
	t.Setenv("TOOLGATE_TEST_CACHE", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	tests := []struct {
		name     string
		call     func(testing.TB) string
		mentions string
	}{
		{"node modules", NodeModules, "Node MCP servers"},
		{"node bin", func(t testing.TB) string { return NodeBin(t, "mcp-server-everything") }, "Node MCP servers"},
		{"kube assets", KubeAssets, "kube-apiserver"},
		{"prometheus", func(t testing.TB) string { p, _ := Prometheus(t); return p }, "prometheus is not installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &fatalRecorder{TB: t}
			if got := tt.call(rec); got != "" {
				t.Errorf("returned %q for a missing part, want \"\"", got)
			}
			if len(rec.fatals) != 1 {
				t.Fatalf("got %d fatal errors, want 1: %q", len(rec.fatals), rec.fatals)
			}
			msg := rec.fatals[0]
			for _, want := range []string{tt.mentions, "make test-deps"} {
				if !strings.Contains(msg, want) {
					t.Errorf("fatal message %q does not mention %q", msg, want)
				}
			}
		})
	}
}

func TestRelativeCacheIsFatal(t *testing.T) {
	t.Setenv("TOOLGATE_TEST_CACHE", "relative/cache")
	rec := &fatalRecorder{TB: t}
	if got := KubeAssets(rec); got != "" {
		t.Errorf("KubeAssets() = %q with a relative cache, want \"\"", got)
	}
	if len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], "absolute path") {
		t.Errorf("fatal messages = %q, want one about an absolute path", rec.fatals)
	}
}
