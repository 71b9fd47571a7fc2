package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/core/client/gatewaytest"
)

// What the client commands print when the gateway refuses a name or a call
// is said once, with the CLI's commands: never the meta-tools' words the
// gateway answers an assistant with.
func TestRefusalsInCLIWords(t *testing.T) {
	_, url := helloGateway(t, `plugin "bad" {
  type       = "kubernetes"
  auto_start = true
  config { kubeconfig = "/nonexistent/kubeconfig" }
}`)
	waitFailed := time.Now().Add(30 * time.Second)
	for !strings.Contains(tg(t, nil, "plugins", "status", "bad", url).stdout, "failed") {
		if time.Now().After(waitFailed) {
			t.Fatal("plugin bad did not fail on its kubeconfig")
		}
		time.Sleep(50 * time.Millisecond)
	}
	wantExit(t, tg(t, nil, "plugins", "stop", "hello", url), 0, nil, nil)
	stopped := "error: cannot call x_hello_echo: plugin hello is stopped\nhint: toolgate plugins start hello starts it\n"
	badHint := "hint: toolgate plugins status bad shows its last error; toolgate plugins restart bad tries again once it is fixed"
	for _, tt := range []struct {
		args   []string
		code   int
		stderr []string
	}{
		// Said once, in CLI words, with -o json too (a refusal is no result).
		{[]string{"call", "x_hello_echo", "--arg", "text=hi"}, 1, []string{stopped}},
		{[]string{"call", "x_hello_echo", "--arg", "text=hi", "-o", "json"}, 1, []string{stopped}},
		{[]string{"call", "x_bad_list_pods"}, 1, []string{"error: cannot call x_bad_list_pods: plugin bad is failed, so its tools are not known: ", "/nonexistent/kubeconfig", badHint}},
		{[]string{"tools", "describe", "x_bad_list_pods"}, 1, []string{"error: cannot describe x_bad_list_pods: plugin bad is failed", badHint}},
		{[]string{"tools", "describe", "x_hello_gret"}, 1, []string{`error: no tool named "x_hello_gret"; did you mean "x_hello_greet"`, "hint: " + searchHint}},
		{[]string{"call", "x_nope"}, 1, []string{`error: no tool named "x_nope"` + "\nhint: " + searchHint}},
		{[]string{"plugins", "start", "helo"}, 1, []string{`error: no plugin named "helo"; did you mean "hello"?` + "\nhint: toolgate plugins list shows the plugins there are"}},
		{[]string{"plugins", "stop", "nosuch"}, 1, []string{`error: no plugin named "nosuch"` + "\nhint: toolgate plugins list"}},
		{[]string{"plugins", "restart", "nosuch"}, 1, []string{`error: no plugin named "nosuch"`}},
		{[]string{"plugins", "status", "nosuch"}, 1, []string{`error: no plugin named "nosuch"`}},
		{[]string{"plugins", "restart", "bad"}, 1, []string{"error: cannot restart plugin bad: it is failed: ", badHint}},
		{[]string{"prompts", "get", "x_hello_welcom"}, 1, []string{`error: no prompt named "x_hello_welcom"; did you mean "x_hello_welcome"?` + "\nhint: toolgate prompts list shows the prompts there are"}},
		{[]string{"prompts", "get", "x_hello_welcome"}, 1, []string{"error: prompt x_hello_welcome requires --arg name=VALUE"}},
		{[]string{"prompts", "get", "x_hello_welcome", "--arg", "nme=Ada"}, 1, []string{`error: --arg nme: prompt x_hello_welcome has no argument named "nme"; its arguments: name`}},
		// An empty name is refused before any call.
		{[]string{"call", ""}, 2, []string{`NAME "": want a tool's name, as toolgate tools list shows them`}},
		{[]string{"tools", "describe", ""}, 2, []string{`NAME "": want a tool's name`}},
		{[]string{"plugins", "start", ""}, 2, []string{`NAME "": want a plugin's name, as toolgate plugins list shows them`}},
		{[]string{"plugins", "status", ""}, 2, []string{`NAME "": want a plugin's name`}},
		{[]string{"prompts", "get", ""}, 2, []string{`NAME "": want a prompt's name, as toolgate prompts list shows them`}},
	} {
		r := tg(t, nil, append(tt.args, url)...)
		wantExit(t, r, tt.code, nil, tt.stderr)
		if tt.code == 1 && r.stdout != "" {
			t.Errorf("%q printed on stdout with its refusal:\n%s", tt.args, r.stdout)
		}
		noMetaWords(t, r)
	}

	r := tg(t, nil, "plugins", "list", url)
	wantExit(t, r, 0, []string{"hello", "stopped", "bad", "failed"}, nil)

	wantExit(t, tg(t, nil, "plugins", "start", "hello", url), 0, nil, nil)
	r = tg(t, nil, "call", "x_hello_count", "--arg", "to=3", "--arg", "delay_ms=2000", "--timeout", "100ms", url)
	wantExit(t, r, 1, nil, []string{"error: the call to x_hello_count ran out of time (--timeout 100ms)\nhint: --timeout (such as --timeout 5m) allows it longer\n"})
	noMetaWords(t, r)
}

// A call that waits for its plugin's start when the gateway is told to shut
// down prints the gateway's answer, that it is shutting down: the plugin is
// stopped then, which an operator's stop would also show, but that is not
// what happened, and the CLI's advice to start it would be wrong. Another
// call in flight keeps the gateway draining, so the lookups after the
// answer reach it.
func TestCallDuringShutdownSaysTheGatewaysAnswer(t *testing.T) {
	dir := t.TempDir()
	testplugin := filepath.Join(dir, "testplugin")
	build := exec.Command("go", "build", "-o", testplugin, "./plugintest/testplugin")
	build.Dir = filepath.Join("..", "..", "sdk")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build testplugin: %v\n%s", err, out)
	}
	hang := filepath.Join(dir, "hang")
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, dir, fmt.Sprintf(`plugin "tp" {
  path          = %q
  auto_start    = false
  idle_timeout  = "1s"
  start_timeout = "10m"
  env           = { TESTPLUGIN_HANG_CONFIGURE_FILE = %q }
}`, testplugin, hang)), "TOOLGATE_SHUTDOWN_GRACE=10m")
	url := "--url=" + gw.URL
	// Started once at boot to learn its tools, then stopped while idle: the
	// call below starts it, and that start hangs.
	deadline := time.Now().Add(30 * time.Second)
	lazy := func() bool {
		var ps []struct {
			State string
			Tools int
		}
		return json.Unmarshal([]byte(tg(t, nil, "plugins", "status", "tp", url, "-o", "json").stdout), &ps) == nil &&
			len(ps) == 1 && ps[0].State == "lazy" && ps[0].Tools > 0
	}
	for !lazy() {
		if time.Now().After(deadline) {
			t.Fatalf("tp did not go lazy with its tools\n%s", gw.Stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := os.WriteFile(hang, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	holder := exec.Command(bins.Toolgate, "call", "x_hello_count", "--arg", "to=2", "--arg", "delay_ms=600000", "--timeout", "10m", url)
	progress, err := holder.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	lines := bufio.NewScanner(progress)
	for lines.Scan() && !strings.Contains(lines.Text(), "counted 1") {
	}

	called := make(chan result, 1)
	go func() { called <- tg(t, nil, "call", "x_tp_echo", "--arg", "text=hi", url) }()
	for !strings.Contains(gw.Stderr(), "hanging in configure") {
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatalf("the call did not start tp\n%s", gw.Stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopped := make(chan struct{})
	go func() { gw.Stop(); close(stopped) }()
	r := <-called
	_ = holder.Process.Kill()
	<-stopped

	wantExit(t, r, 1, nil, []string{`plugin "tp" is stopping: the gateway is shutting down`})
	for _, not := range []string{"hint:", "plugins start", "cannot reach"} {
		if strings.Contains(r.stderr, not) {
			t.Errorf("the call during a shutdown printed %q:\n%s", not, r.stderr)
		}
	}
	noMetaWords(t, r)
}
