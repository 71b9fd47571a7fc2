// Package testparts tells tests where the real parts they run against are
// installed: the Node MCP servers and SDK, Prometheus, HAProxy, and a
// Kubernetes API server with etcd, Helm and kubectl; and it runs the Node
// client scripts that drive them, one way for every package.
//
// Tests use real processes, not mocks, and those processes are installed by
// scripts/test-deps.sh into a cache outside the checkout. Keeping the layout in
// one place means a test never guesses a path, and a missing part fails with
// the one instruction that fixes it instead of a confusing exec error. Parts
// are never optional: a missing one is a fatal test error, not a skip.
package testparts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// These must match the directory keys in scripts/install-node-parts.sh and
// scripts/build-kube.sh; the package's tests check that they do.
const (
	nodeKey = "node-v2"
	// conformanceKey is scripts/install-conformance.sh's directory key.
	conformanceKey = "conformance-v1"
	kubeVersion    = "1.36.3"
	etcdVersion    = "3.6.16"
	helmVersion    = "3.22.0"
	// promOperatorVersion is scripts/install-crds.sh's OPERATOR_VERSION.
	promOperatorVersion = "0.85.0"

	// nodeStamp is written by the installer only after a complete install.
	nodeStamp = ".installed"
)

const fixHint = "run `make test-deps` (scripts/test-deps.sh) to install the test parts"

// Root returns the cache directory the test parts are installed into:
// $TOOLGATE_TEST_CACHE when set, otherwise ~/.cache/toolgate-test. It is
// empty when neither is available.
func Root() string {
	if dir := os.Getenv("TOOLGATE_TEST_CACHE"); dir != "" {
		return filepath.Clean(dir)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "toolgate-test")
}

// root is Root checked for use: tests run in their package's directory, so a
// relative cache path would mean something different in every package.
func root(t testing.TB) string {
	t.Helper()
	dir := Root()
	if dir == "" {
		t.Fatalf("test parts: no cache directory: TOOLGATE_TEST_CACHE is unset and there is no home directory; set it and %s", fixHint)
		return ""
	}
	if !filepath.IsAbs(dir) {
		t.Fatalf("test parts: TOOLGATE_TEST_CACHE must be an absolute path, got %q", dir)
		return ""
	}
	return dir
}

// NodeModules returns the absolute npm prefix directory of the Node parts: the
// directory that contains node_modules/ (usable as NODE_PATH's parent or as
// the working directory of a script that imports @modelcontextprotocol/sdk).
func NodeModules(t testing.TB) string {
	t.Helper()
	r := root(t)
	if r == "" {
		return ""
	}
	prefix := filepath.Join(r, nodeKey)
	if err := requireFile(filepath.Join(prefix, nodeStamp)); err != nil {
		t.Fatalf("test parts: Node MCP servers and SDK are not installed in %s (%v); %s", prefix, err, fixHint)
		return ""
	}
	return prefix
}

// NodeBin returns the absolute path of the executable node_modules/.bin/<name>,
// for example "mcp-server-everything".
func NodeBin(t testing.TB, name string) string {
	t.Helper()
	prefix := NodeModules(t)
	if prefix == "" {
		return ""
	}
	bin := filepath.Join(prefix, "node_modules", ".bin", name)
	if err := requireExecutable(bin); err != nil {
		t.Fatalf("test parts: Node executable %q is missing: %v; %s", name, err, fixHint)
		return ""
	}
	return bin
}

// Conformance returns the Node 22 executable and the entry script of the
// official MCP conformance suite: run `node suite server --url URL
// --scenario NAME`. The suite needs Node 22, which the machines' node is not.
func Conformance(t testing.TB) (node, suite string) {
	t.Helper()
	r := root(t)
	if r == "" {
		return "", ""
	}
	prefix := filepath.Join(r, conformanceKey)
	if err := requireFile(filepath.Join(prefix, nodeStamp)); err != nil {
		t.Fatalf("test parts: the MCP conformance suite is not installed in %s (%v); %s", prefix, err, fixHint)
		return "", ""
	}
	node = filepath.Join(prefix, "node_modules", "node", "bin", "node")
	suite = filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if err := requireExecutable(node); err != nil {
		t.Fatalf("test parts: Node 22 for the conformance suite is missing: %v; %s", err, fixHint)
		return "", ""
	}
	if err := requireFile(suite); err != nil {
		t.Fatalf("test parts: the conformance suite is missing: %v; %s", err, fixHint)
		return "", ""
	}
	return node, suite
}

// KubeAssets returns the absolute directory holding the kube-apiserver and
// etcd binaries, in the layout envtest expects of KUBEBUILDER_ASSETS.
func KubeAssets(t testing.TB) string {
	t.Helper()
	r := root(t)
	if r == "" {
		return ""
	}
	dir := filepath.Join(r, "kube-"+kubeVersion, "bin")
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if err := requireExecutable(filepath.Join(dir, name)); err != nil {
			t.Fatalf("test parts: %s (Kubernetes v%s, etcd v%s) is missing: %v; %s",
				name, kubeVersion, etcdVersion, err, fixHint)
			return ""
		}
	}
	return dir
}

// Helm returns the absolute path of the helm executable built from the Go
// module proxy by scripts/install-helm.sh.
func Helm(t testing.TB) string {
	t.Helper()
	r := root(t)
	if r == "" {
		return ""
	}
	bin := filepath.Join(r, "helm-"+helmVersion, "bin", "helm")
	if err := requireExecutable(bin); err != nil {
		t.Fatalf("test parts: helm v%s is missing: %v; %s", helmVersion, err, fixHint)
		return ""
	}
	return bin
}

// ServiceMonitorCRDs returns the directory holding the Prometheus Operator's
// ServiceMonitor CustomResourceDefinition, for a test API server to install.
func ServiceMonitorCRDs(t testing.TB) string {
	t.Helper()
	r := root(t)
	if r == "" {
		return ""
	}
	dir := filepath.Join(r, "crds-prometheus-operator-"+promOperatorVersion)
	if _, err := os.Stat(filepath.Join(dir, "monitoring.coreos.com_servicemonitors.yaml")); err != nil {
		t.Fatalf("test parts: the ServiceMonitor CRD of prometheus-operator v%s is missing: %v; %s", promOperatorVersion, err, fixHint)
		return ""
	}
	return dir
}

// Kubectl returns the absolute path of the kubectl found on PATH: it is part
// of the machine, not of the test cache.
func Kubectl(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("kubectl")
	if err == nil {
		p, err = filepath.Abs(p)
	}
	if err != nil {
		t.Fatalf("test parts: kubectl is not installed: %v; install it from your distribution", err)
		return ""
	}
	return p
}

// Prometheus returns the absolute paths of the prometheus and promtool
// executables found on PATH (Debian's package puts them in /usr/bin).
func Prometheus(t testing.TB) (prometheus, promtool string) {
	t.Helper()
	paths := make([]string, 0, 2)
	for _, name := range []string{"prometheus", "promtool"} {
		p, err := exec.LookPath(name)
		if err == nil {
			p, err = filepath.Abs(p)
		}
		if err != nil {
			t.Fatalf("test parts: %s is not installed: %v; %s", name, err, fixHint)
			return "", ""
		}
		paths = append(paths, p)
	}
	return paths[0], paths[1]
}

// HAProxy returns the absolute path of the haproxy executable found on PATH
// (Debian's package puts it in /usr/sbin, which is searched too).
func HAProxy(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("haproxy")
	if err != nil {
		if err2 := requireExecutable("/usr/sbin/haproxy"); err2 == nil {
			return "/usr/sbin/haproxy"
		}
	}
	if err == nil {
		p, err = filepath.Abs(p)
	}
	if err != nil {
		t.Fatalf("test parts: haproxy is not installed: %v; %s (it installs Debian's haproxy package)", err, fixHint)
		return ""
	}
	return p
}

// errNotExecutable reports a file that exists but cannot be run.
var errNotExecutable = errors.New("not an executable file")

func requireFile(path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	return nil
}

func requireExecutable(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s: %w (mode %v)", path, errNotExecutable, info.Mode())
	}
	return nil
}
