package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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
	r = tg(t, nil, "test", bad, url, "--junit", junit)
	wantExit(t, r, 1, []string{"FAIL", bad + `:3: step 1: unknown key "expects"; did you mean "expect"?`, "0 passed, 1 failed"}, nil)
	if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), `<testcase name="load" classname="`+bad+`" file="`+bad+`" line="3"`) {
		t.Errorf("junit report of a file that cannot be read: %v\n%s", err, x)
	}
}

// A step's timeout is the call's deadline at the gateway too, not only how
// long the runner waits: a tool slower than the plugin's call_timeout passes
// when the step allows it the time.
func TestStepTimeoutReachesGateway(t *testing.T) {
	_, url := helloGateway(t, fmt.Sprintf("plugin \"slow\" {\n  path = %q\n  auto_start = true\n  call_timeout = \"1s\"\n}\n", bins.Hello))
	file := filepath.Join(t.TempDir(), "slow.yaml")
	body := "steps:\n" +
		"  - name: within-step-timeout\n    call: x_slow_count\n    args: {to: 15, delay_ms: 100}\n    timeout: 20s\n    wait_for: {timeout: 20s}\n    expect: {contains: counted to 15}\n" +
		"  - name: plugin-default\n    call: x_slow_count\n    args: {to: 15, delay_ms: 100}\n    expect: {error_contains: timed out after 1s}\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "test", file, url)
	wantExit(t, r, 0, []string{"PASS  slow/within-step-timeout", "PASS  slow/plugin-default", "2 passed, 0 failed"}, nil)
}

// Ctrl-C in the middle of a run still prints the summary of what ran and
// writes the JUnit report, and says the run was interrupted.
func TestInterruptedTestReportsWhatRan(t *testing.T) {
	_, url := helloGateway(t)
	dir := t.TempDir()
	file, junit := filepath.Join(dir, "long.yaml"), filepath.Join(dir, "junit.xml")
	body := "steps:\n  - name: quick\n    call: x_hello_greet\n    args: {name: Ada}\n" +
		"  - name: long\n    call: x_hello_count\n    args: {to: 100, delay_ms: 200}\n" +
		"  - name: never\n    call: x_hello_greet\n    args: {name: Bob}\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bins.Toolgate, "test", file, url, "--junit", junit)
	var stdout testparts.Buffer
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the long step runs.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stdout.String(), "PASS  long/quick") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit: %v, want status 2", err)
	}
	for _, want := range []string{"PASS  long/quick", "FAIL  long/long", `step "long": interrupted`, "SKIP  long/never (interrupted)", "1 passed, 1 failed (interrupted)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "interrupted: 1 passed, 1 failed") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<testsuites tests="3" failures="1">`) {
		t.Errorf("junit report: %v\n%s", err, x)
	}
}

// A scenario whose gateway cannot be had names the scenario file, so a CI
// log of many files says which one to fix.
func TestScenarioWithoutGatewayNamesItsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "nogw.yaml")
	if err := os.WriteFile(file, []byte("config: missing.hcl\nsteps:\n  - call: x_hello_greet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "test", file)
	wantExit(t, r, 1, []string{"FAIL  nogw/connect", file + ": read config: open " + filepath.Join(filepath.Dir(file), "missing.hcl")}, nil)
}

// A --junit path that cannot be written fails before any scenario runs.
func TestJUnitPathCheckedFirst(t *testing.T) {
	_, url := helloGateway(t)
	junit := filepath.Join(t.TempDir(), "no-such-dir", "junit.xml")
	r := tg(t, nil, "test", "testdata/wrong.yaml", url, "--junit", junit)
	wantExit(t, r, 2, nil, []string{"--junit: open " + junit + ": no such file or directory"})
	if r.stdout != "" {
		t.Errorf("scenarios ran before the report path was checked:\n%s", r.stdout)
	}
}
