package pluginhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/protov1"
)

var testPlugin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pluginhost-test")
	if err != nil {
		panic(err)
	}
	testPlugin = filepath.Join(dir, "testplugin")
	if out, err := exec.Command("go", "build", "-o", testPlugin, "../plugintest/testplugin").CombinedOutput(); err != nil {
		panic("build testplugin: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}

func start(t testing.TB, env ...string) *pluginhost.Plugin {
	t.Helper()
	p, err := pluginhost.Start(context.Background(), pluginhost.Config{
		Name: "test", Path: testPlugin, Env: append([]string{"PATH=" + os.Getenv("PATH")}, env...),
		StartTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { p.Stop(2 * time.Second) })
	return p
}

func callText(t *testing.T, p *pluginhost.Plugin, name, args string) string {
	t.Helper()
	res, err := p.CallTool(context.Background(), &protov1.CallRequest{Name: name, Arguments: json.RawMessage(args)}, nil)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("call %s: %+v", name, res)
	}
	return res.Content[0].Text
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestCallAndHealth(t *testing.T) {
	p := start(t)
	if got := callText(t, p, "echo", `{"text":"hi"}`); got != "hi" {
		t.Errorf("echo = %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if p.Pid() == 0 || p.ExitStatus() != "" {
		t.Errorf("pid=%d status=%q", p.Pid(), p.ExitStatus())
	}
}

func TestPluginGetsOnlyItsEnvironmentAndNoStdin(t *testing.T) {
	t.Setenv("TOOLGATE_SECRET", "hunter2")
	p := start(t, "GIVEN=1")
	names := callText(t, p, "env", `{}`)
	if strings.Contains(names, "TOOLGATE_SECRET") || !strings.Contains(names, "GIVEN") {
		t.Errorf("plugin environment: %s", names)
	}
	if got := callText(t, p, "stdin", `{}`); got != "read 0 bytes, err=EOF" {
		t.Errorf("stdin: %s", got)
	}
}

func TestCrashIsSeenAtOnceWithStatus(t *testing.T) {
	p := start(t)
	_, err := p.CallTool(context.Background(), &protov1.CallRequest{Name: "exit", Arguments: json.RawMessage(`{"code":7}`)}, nil)
	if err == nil {
		t.Fatal("call that kills the plugin returned no error")
	}
	select {
	case <-p.Exited():
	case <-time.After(2 * time.Second):
		t.Fatal("exit not noticed within 2s")
	}
	if got := p.ExitStatus(); got != "exit status 7" {
		t.Errorf("ExitStatus = %q", got)
	}
	if err := p.Ping(context.Background()); !errors.Is(err, pluginhost.ErrExited) {
		t.Errorf("Ping after exit: %v", err)
	}
}

func TestSIGKILLAndProcessGroup(t *testing.T) {
	p := start(t)
	child, _ := strconv.Atoi(callText(t, p, "spawn", `{}`))
	if !alive(child) {
		t.Fatal("child not running")
	}
	_ = syscall.Kill(p.Pid(), syscall.SIGKILL)
	select {
	case <-p.Exited():
	case <-time.After(2 * time.Second):
		t.Fatal("SIGKILL not noticed")
	}
	if got := p.ExitStatus(); got != "killed by signal SIGKILL" {
		t.Errorf("ExitStatus = %q", got)
	}
	waitGone(t, child)
}

func TestStopEndsTheWholeGroup(t *testing.T) {
	p := start(t)
	child, _ := strconv.Atoi(callText(t, p, "spawn", `{}`))
	pid := p.Pid()
	p.Stop(time.Second)
	waitGone(t, pid)
	waitGone(t, child)
}

func TestHungPluginFailsPing(t *testing.T) {
	p := start(t)
	_ = syscall.Kill(p.Pid(), syscall.SIGSTOP)
	waitStopped(t, p.Pid())
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := p.Ping(ctx); err == nil {
		t.Error("Ping of a stopped plugin succeeded")
	}
	p.Kill()
}

// waitStopped returns once every thread of pid is stopped. kill(2) only queues
// SIGSTOP: until the thread chosen to take it gets a CPU, the process's other
// threads run on and may still answer a request.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	tasks := "/proc/" + strconv.Itoa(pid) + "/task"
	deadline := time.Now().Add(3 * time.Second)
	for {
		threads, err := os.ReadDir(tasks)
		if err != nil {
			t.Fatalf("threads of %d: %v", pid, err)
		}
		stopped := 0
		for _, th := range threads {
			b, err := os.ReadFile(tasks + "/" + th.Name() + "/stat")
			if err == nil && strings.Contains(string(b), ") T ") {
				stopped++
			}
		}
		if stopped == len(threads) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d: %d of %d threads stopped", pid, stopped, len(threads))
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCancelledCallEndsPromptly(t *testing.T) {
	p := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := p.CallTool(ctx, &protov1.CallRequest{Name: "sleep", Arguments: json.RawMessage(`{"ms":10000}`)}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(begin); d > time.Second {
		t.Errorf("cancelled call took %v", d)
	}
	if got := callText(t, p, "echo", `{"text":"still here"}`); got != "still here" {
		t.Errorf("after cancel: %q", got)
	}
}

func TestStartFailureCarriesStderr(t *testing.T) {
	_, err := pluginhost.Start(context.Background(), pluginhost.Config{
		Name: "dies", Path: testPlugin, Env: []string{"TESTPLUGIN_DIE_AT_START=1"}, StartTimeout: 5 * time.Second,
	})
	// It died as it started: no plugin's fault of writing no handshake.
	want := `start plugin "dies": plugin process exited before its handshake (exit status 3): ` + testPlugin + `; its stderr: testplugin: dying at start as asked`
	if err == nil || err.Error() != want || !errors.Is(err, pluginhost.ErrExited) || errors.Is(err, pluginhost.ErrNotPlugin) {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	_, err = pluginhost.Start(context.Background(), pluginhost.Config{Name: "missing", Path: "/nonexistent/plugin"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/plugin") {
		t.Fatalf("missing binary: err = %v", err)
	}
	// A path made non-executable (a deploy that lost the mode bit).
	noexec := filepath.Join(t.TempDir(), "plugin")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = pluginhost.Start(context.Background(), pluginhost.Config{Name: "noexec", Path: noexec})
	want = `start plugin "noexec": fork/exec ` + noexec + `: permission denied (is the file executable? chmod +x it)`
	if err == nil || err.Error() != want {
		t.Fatalf("non-executable plugin: err = %v\nwant %s", err, want)
	}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) {
		// A zombie still answers kill(0); its state says it is dead.
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSIGTERMEndsWhatThePluginSpawned(t *testing.T) {
	// The host has the kernel send SIGTERM when it dies; the plugin must then
	// take its whole process group down with it.
	p := start(t)
	child, _ := strconv.Atoi(callText(t, p, "spawn", `{}`))
	_ = syscall.Kill(p.Pid(), syscall.SIGTERM)
	select {
	case <-p.Exited():
	case <-time.After(2 * time.Second):
		t.Fatal("plugin ignored SIGTERM")
	}
	waitGone(t, child)
}

// A program that is not a plugin fails to start with what it did, and the
// log does not claim a process that is gone "failed to exit gracefully"
// (go-plugin's words when it is asked to kill one it never connected to).
func TestNotAPluginFailsQuietly(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"/bin/true", "exit status 0"},
		// A wrong path: the program never started, so nothing exited at all.
		{"/nonexistent/plugin", "no such file or directory"},
	} {
		logs := &syncBuffer{}
		logger := hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace})
		_, err := pluginhost.Start(context.Background(), pluginhost.Config{
			Name: "fake", Path: c.path, Logger: logger, StartTimeout: 10 * time.Second,
		})
		if err == nil || !strings.Contains(err.Error(), `start plugin "fake"`) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("start of %s: %v", c.path, err)
		}
		if strings.Contains(logs.String(), "failed to exit gracefully") {
			t.Errorf("log after a start of %s that failed:\n%s", c.path, logs.String())
		}
	}
}

// A program that writes something else where go-plugin's handshake goes (a
// plugin printing before plugin.Serve, or no plugin at all) is named as not a
// plugin, with what it wrote and what to do, on one line.
func TestNotAPluginSaysWhatToDo(t *testing.T) {
	script := filepath.Join(t.TempDir(), "chatty")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'starting up!'\nexec sleep 10\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want []string
	}{
		{script, []string{`start plugin "p": not a toolgate plugin: ` + script + ` wrote "starting up!" on stdout where the handshake goes`, "writes nothing to stdout before plugin.Serve"}},
		{"/bin/true", []string{`start plugin "p": not a toolgate plugin: /bin/true wrote no handshake on stdout`, "(exit status 0)"}},
	} {
		_, err := pluginhost.Start(context.Background(), pluginhost.Config{Name: "p", Path: c.path, StartTimeout: 10 * time.Second})
		if !errors.Is(err, pluginhost.ErrNotPlugin) {
			t.Fatalf("start of %s: %v, want ErrNotPlugin", c.path, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("start of %s: %q lacks %q", c.path, err, w)
			}
		}
		if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "Unrecognized") {
			t.Errorf("start of %s: %q: want one line in words of its own", c.path, err)
		}
	}
}

// A start given up while the program has yet to write its handshake (here
// one that never will) ends that program at once: it does not run on, and
// hold the start, until StartTimeout.
func TestStartGivenUpEndsTheProcessAtOnce(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := filepath.Join(dir, "mute")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho $$ > "+pidFile+".tmp\nmv "+pidFile+".tmp "+pidFile+"\nexec sleep 120\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := pluginhost.Start(ctx, pluginhost.Config{Name: "mute", Path: script, StartTimeout: 2 * time.Minute})
		errc <- err
	}()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the program did not start")
		}
	}
	cancel()
	waitGone(t, pid)
	if err := <-errc; !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `start plugin "mute"`) {
		t.Errorf("start given up: %v", err)
	}
}
