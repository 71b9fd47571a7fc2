package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testparts"
)

// exampleConfig copies config.example.hcl next to a bin/hello-plugin, as
// `make build` lays them out, with its own state directory.
func exampleConfig(t *testing.T) (config string, env []string) {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile("../../config.example.hcl")
	if err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(dir, "config.example.hcl")
	if err := os.WriteFile(config, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bins.Hello, filepath.Join(dir, "bin", "hello-plugin")); err != nil {
		t.Fatal(err)
	}
	nodeBin := filepath.Join(testparts.NodeModules(t), "node_modules", ".bin")
	return config, []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state"), "PATH=" + nodeBin + ":" + os.Getenv("PATH")}
}

var summary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`)

func TestShippedScenariosPass(t *testing.T) {
	config, env := exampleConfig(t)
	files, err := filepath.Glob("../../scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	junit := filepath.Join(t.TempDir(), "junit.xml")
	args := append([]string{"test", "--config", config, "--junit", junit}, files...)
	r := tg(t, env, args...)
	wantExit(t, r, 0, nil, nil)
	m := summary.FindStringSubmatch(r.stdout)
	if m == nil || m[2] != "0" || m[1] == "0" {
		t.Fatalf("summary line: %q\n%s", m, r.stdout)
	}
	if strings.Contains(r.stdout, "FAIL") || strings.Contains(r.stdout, "SKIP") {
		t.Errorf("not every step passed:\n%s", r.stdout)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<testsuites tests="`+m[1]+`" failures="0">`) {
		t.Errorf("junit report: %v\n%s", err, x)
	}
	t.Logf("%s passed", m[1])
}

func TestWrongScenarioFails(t *testing.T) {
	_, url := helloGateway(t)
	junit := filepath.Join(t.TempDir(), "junit.xml")
	r := tg(t, nil, "test", "testdata/wrong.yaml", url, "--junit", junit)
	wantExit(t, r, 1, []string{
		"PASS  wrong/greet",
		"FAIL  wrong/expects-french",
		`testdata/wrong.yaml:9: step "expects-french": expect.json_path "greeting" equals "Bonjour, Ada!": got "Hello, Ada!"`,
		"SKIP  wrong/never-runs",
	}, nil)
	if m := summary.FindStringSubmatch(r.stdout); m == nil || m[1] != "1" || m[2] != "1" {
		t.Errorf("summary line %q, want 1 passed, 1 failed\n%s", m, r.stdout)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<failure message="testdata/wrong.yaml:9`) {
		t.Errorf("junit report: %v\n%s", err, x)
	}

	// A scenario that cannot be read fails with the file and line.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("steps:\n  - call: x_hello_echo\n    expects: {contains: hi}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = tg(t, nil, "test", bad, url)
	wantExit(t, r, 1, []string{"FAIL", "field expects not found", "0 passed, 1 failed"}, nil)
}
