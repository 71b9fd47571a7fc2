package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/protov1"
)

var testPlugin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "supervisor-test")
	if err != nil {
		panic(err)
	}
	testPlugin = filepath.Join(dir, "testplugin")
	build := exec.Command("go", "build", "-o", testPlugin, "./plugintest/testplugin")
	build.Dir = "../../sdk"
	if out, err := build.CombinedOutput(); err != nil {
		panic("build testplugin: " + err.Error() + "\n" + string(out))
	}
	goleak.VerifyTestMain(m)
	os.RemoveAll(dir)
}

var fast = Policy{
	BackoffBase: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond, HealthyAfter: time.Minute,
	MaxCrashes: 3, CrashWindow: time.Minute, Cooldown: time.Hour,
	PingEvery: 100 * time.Millisecond, PingTimeout: 100 * time.Millisecond, MaxMissedPings: 3,
	StopGrace: time.Second, LearnIdle: time.Minute,
}

type harness struct {
	sup    *Supervisor
	mu     sync.Mutex
	events []Event
	man    *catalog.Manifest
}

func (h *harness) transitions() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		out = append(out, string(e.To))
	}
	return out
}

func run(t *testing.T, spec Spec, policy Policy) *harness {
	t.Helper()
	return runLogged(t, spec, policy, hclog.NewNullLogger())
}

func runLogged(t *testing.T, spec Spec, policy Policy, log hclog.Logger) *harness {
	t.Helper()
	if spec.Name == "" {
		spec.Name = "test"
	}
	if spec.Path == "" {
		spec.Path = testPlugin
	}
	spec.Env = append(spec.Env, "PATH="+os.Getenv("PATH"))
	h := &harness{}
	h.sup = New(spec, policy, Hooks{
		Manifest: func(_ string, m *catalog.Manifest) { h.mu.Lock(); h.man = m; h.mu.Unlock() },
		Event:    func(e Event) { h.mu.Lock(); h.events = append(h.events, e); h.mu.Unlock() },
	}, log)
	ctx, cancel := context.WithCancel(context.Background())
	go h.sup.Run(ctx)
	t.Cleanup(func() {
		cancel()
		<-h.sup.Done()
	})
	return h
}

func call(ctx context.Context, s *Supervisor, tool, args string, retry bool) (*protov1.Result, error) {
	return s.Call(ctx, &protov1.CallRequest{Name: tool, Arguments: json.RawMessage(args)}, nil, retry)
}

// waitNewPid waits until the plugin runs again in a process other than old.
func waitNewPid(t *testing.T, s *Supervisor, old int, within time.Duration) Status {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st := s.Status()
		if st.State == Running && st.Pid != old {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("state %s pid %d after %s, want running again in a new process", st.State, st.Pid, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitState(t *testing.T, s *Supervisor, want State, within time.Duration) Status {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		st := s.Status()
		if st.State == want {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("state %s after %s, want %s (last error: %s)", st.State, within, want, st.LastError)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLazyStartIsSharedByConcurrentCallers(t *testing.T) {
	h := run(t, Spec{}, fast)
	if st := h.sup.Status(); st.State != Lazy || st.Pid != 0 {
		t.Fatalf("before any call: %+v", st)
	}
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := call(context.Background(), h.sup, "echo", `{"text":"x"}`, false)
			if err != nil || res.Content[0].Text != "x" {
				t.Errorf("call: %v %+v", err, res)
			}
		}()
	}
	wg.Wait()
	if got := strings.Join(h.transitions(), ","); got != "starting,running" {
		t.Errorf("transitions = %s, want one start", got)
	}
	if h.man == nil || len(h.man.Tools) == 0 {
		t.Error("manifest not learned")
	}
}

func TestCrashEndsInFlightCallAndRestarts(t *testing.T) {
	h := run(t, Spec{AutoStart: true}, fast)
	st := waitState(t, h.sup, Running, 10*time.Second)
	errc := make(chan error, 1)
	go func() {
		_, err := call(context.Background(), h.sup, "sleep", `{"ms":10000}`, false)
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond)
	killed := time.Now()
	_ = syscall.Kill(st.Pid, syscall.SIGKILL)
	select {
	case err := <-errc:
		var crash *CrashError
		if !errors.As(err, &crash) || crash.Status != "killed by signal SIGKILL" || crash.Tool != "sleep" {
			t.Fatalf("in-flight call: %v", err)
		}
		if d := time.Since(killed); d > time.Second {
			t.Errorf("in-flight call ended %v after the kill", d)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("in-flight call did not end")
	}
	res, err := call(context.Background(), h.sup, "echo", `{"text":"back"}`, false)
	if err != nil || res.Content[0].Text != "back" {
		t.Fatalf("call after restart: %v", err)
	}
	if st2 := h.sup.Status(); st2.Pid == st.Pid || st2.Restarts != 1 {
		t.Errorf("after restart: %+v", st2)
	}
}

// A crash report quotes what the plugin wrote during the call that died
// with it, not what an earlier call wrote: that told the model a recovered
// panic of a call long done had killed this one.
func TestCrashQuotesOnlyTheCallsStderr(t *testing.T) {
	h := run(t, Spec{AutoStart: true}, fast)
	waitState(t, h.sup, Running, 10*time.Second)
	if _, err := call(context.Background(), h.sup, "log", `{"text":"earlier call"}`, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the relay has the lines in the tail
	_, err := call(context.Background(), h.sup, "exit", `{"code":3}`, false)
	var crash *CrashError
	if !errors.As(err, &crash) || crash.Status != "exit status 3" {
		t.Fatalf("call that exits: %v", err)
	}
	if strings.Contains(err.Error(), "earlier call") || len(crash.Stderr) != 0 {
		t.Errorf("crash quotes stderr of an earlier call: %v", err)
	}
}

func TestReadOnlyCallIsRetriedAfterCrash(t *testing.T) {
	h := run(t, Spec{AutoStart: true}, fast)
	st := waitState(t, h.sup, Running, 10*time.Second)
	go func() {
		time.Sleep(150 * time.Millisecond)
		_ = syscall.Kill(st.Pid, syscall.SIGKILL)
	}()
	res, err := call(context.Background(), h.sup, "sleep", `{"ms":400}`, true)
	if err != nil || res.Content[0].Text != "slept" {
		t.Fatalf("retried call: %v %+v", err, res)
	}
}

// A call that starts a plugin hears of the start's failure as soon as it
// fails, not after every try the circuit allows; the tries go on, and
// calls once the circuit is open answer at once.
func TestStartupFailureOpensCircuitWithStderr(t *testing.T) {
	h := run(t, Spec{Env: []string{"TESTPLUGIN_DIE_AT_START=1"}}, fast)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := call(ctx, h.sup, "echo", `{}`, false)
	var un *UnavailableError
	if !errors.As(err, &un) || un.State != Restarting || !strings.Contains(err.Error(), `plugin "test" is restarting: its start failed: start plugin "test"`) ||
		!strings.Contains(err.Error(), "dying at start as asked") || !strings.Contains(err.Error(), "or core_plugin_restart)") {
		t.Fatalf("err = %v, want the failed start with its stderr", err)
	}
	waitState(t, h.sup, Failed, 10*time.Second)
	_, err = call(ctx, h.sup, "echo", `{}`, false)
	if !errors.As(err, &un) || un.State != Failed {
		t.Fatalf("err = %v, want the circuit open", err)
	}
	if !strings.Contains(err.Error(), "dying at start as asked") || !strings.Contains(err.Error(), "3 failures") {
		t.Errorf("reason lacks stderr or count: %v", err)
	}
	begin := time.Now()
	if _, err := call(ctx, h.sup, "echo", `{}`, false); !errors.Is(err, ErrUnavailable) || time.Since(begin) > 50*time.Millisecond {
		t.Errorf("call to failed plugin: %v after %v", err, time.Since(begin))
	}
	if got := h.transitions(); strings.Count(","+strings.Join(got, ",")+",", ",starting,") != 3 {
		t.Errorf("transitions = %v, want 3 starts", got)
	}
}

func TestConfigErrorFailsAtOnce(t *testing.T) {
	var logs testparts.Buffer
	h := runLogged(t, Spec{Config: json.RawMessage(`{"x":1}`), ConfigError: func(ce *protov1.ConfigError) error {
		return errors.New("toolgate.hcl:3:5: " + ce.Fields[0].Path + ": " + ce.Fields[0].Message)
	}}, fast, hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Debug}))
	_, err := call(context.Background(), h.sup, "echo", `{}`, false)
	if err == nil || !strings.Contains(err.Error(), "toolgate.hcl:3:5: x: this plugin takes no configuration") {
		t.Fatalf("err = %v", err)
	}
	if st := h.sup.Status(); st.State != Failed || !st.NextTry.IsZero() {
		t.Errorf("status %+v, want failed with no automatic retry", st)
	}
	// A plugin that refused its config is healthy: it is asked to stop, and
	// exits by itself, so nothing in the log looks like a crash.
	if out := logs.String(); strings.Contains(out, "killed") || strings.Contains(out, "[ERROR]") {
		t.Errorf("log after a refused config:\n%s", out)
	}
}

func TestHungPluginIsReplaced(t *testing.T) {
	h := run(t, Spec{AutoStart: true}, fast)
	st := waitState(t, h.sup, Running, 10*time.Second)
	_ = syscall.Kill(st.Pid, syscall.SIGSTOP)
	deadline := time.Now().Add(5 * time.Second)
	for h.sup.Status().Pid == st.Pid || h.sup.Status().State != Running {
		if time.Now().After(deadline) {
			t.Fatalf("hung plugin not replaced: %+v", h.sup.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(strings.Join(h.transitions(), ","), "restarting") {
		t.Errorf("transitions = %v", h.transitions())
	}
}

func TestStopStartAndIdle(t *testing.T) {
	h := run(t, Spec{IdleTimeout: 200 * time.Millisecond}, fast)
	if _, err := call(context.Background(), h.sup, "echo", `{"text":"a"}`, false); err != nil {
		t.Fatal(err)
	}
	pid := h.sup.Status().Pid
	waitState(t, h.sup, Lazy, 3*time.Second)
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("idle plugin process %d still alive", pid)
	}
	if err := h.sup.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := call(context.Background(), h.sup, "echo", `{}`, false); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "core_plugin_start") {
		t.Errorf("call to stopped plugin: %v", err)
	}
	if err := h.sup.Start(context.Background()); err != nil || h.sup.Status().State != Running {
		t.Errorf("start: %v %+v", err, h.sup.Status())
	}
}

func TestCallWaitsForRestartUpToDeadline(t *testing.T) {
	slow := fast
	slow.BackoffBase, slow.BackoffMax = 2*time.Second, 2*time.Second
	h := run(t, Spec{AutoStart: true}, slow)
	st := waitState(t, h.sup, Running, 10*time.Second)
	// The first crash restarts at once; the second waits out the backoff.
	_ = syscall.Kill(st.Pid, syscall.SIGKILL)
	st = waitNewPid(t, h.sup, st.Pid, 10*time.Second)
	_ = syscall.Kill(st.Pid, syscall.SIGKILL)
	waitState(t, h.sup, Restarting, 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := call(ctx, h.sup, "echo", `{}`, false)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "restarting") {
		t.Errorf("err = %v", err)
	}
}

func TestBackoff(t *testing.T) {
	p := DefaultPolicy
	for i := 0; i < 50; i++ {
		o := &owner{backoff: p.newBackoff()}
		if d := o.nextWait(); d != 0 {
			t.Fatalf("first restart waits %v, want none", d)
		}
		for n, mean := range []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond} {
			if d := o.nextWait(); d < mean/2 || d > mean*3/2 {
				t.Fatalf("wait after %d repeated failures = %v, want within [%v, %v]", n+1, d, mean/2, mean*3/2)
			}
		}
		for range 40 {
			o.nextWait()
		}
		if d := o.nextWait(); d > p.BackoffMax*3/2 || d < p.BackoffMax/2 {
			t.Fatalf("wait after many failures = %v, want around the cap %v", d, p.BackoffMax)
		}
		o.resetBackoff()
		if d := o.nextWait(); d != 0 {
			t.Fatalf("first restart after a reset waits %v, want none", d)
		}
	}
}

type recorder struct {
	mu   sync.Mutex
	prog []float64
}

func (r *recorder) Progress(p protov1.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prog = append(r.prog, p.Progress)
}
func (r *recorder) Log(protov1.LogMessage) {}

func TestRetriedCallProgressNeverGoesBack(t *testing.T) {
	h := run(t, Spec{AutoStart: true}, fast)
	st := waitState(t, h.sup, Running, 10*time.Second)
	go func() {
		time.Sleep(150 * time.Millisecond)
		_ = syscall.Kill(st.Pid, syscall.SIGKILL)
	}()
	rec := &recorder{}
	_, err := h.sup.Call(context.Background(), &protov1.CallRequest{Name: "sleep", Arguments: json.RawMessage(`{"ms":400}`), WantProgress: true}, rec, true)
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.prog) < 2 {
		t.Fatalf("progress = %v", rec.prog)
	}
	for i := 1; i < len(rec.prog); i++ {
		if rec.prog[i] <= rec.prog[i-1] {
			t.Fatalf("progress went back: %v", rec.prog)
		}
	}
}

func TestManifestKeyIgnoresEnvironmentOrder(t *testing.T) {
	a := Spec{Name: "p", Path: testPlugin, Config: json.RawMessage(`{"x":1}`), Env: []string{"A=1", "B=2", "C=3"}}
	b := a
	b.Env = []string{"C=3", "A=1", "B=2"}
	if manifestKey(a) != manifestKey(b) {
		t.Error("the same setup with its environment in another order got another key")
	}
	for name, change := range map[string]func(*Spec){
		"config": func(s *Spec) { s.Config = json.RawMessage(`{"x":2}`) },
		"args":   func(s *Spec) { s.Args = []string{"-v"} },
		"env":    func(s *Spec) { s.Env = []string{"A=1", "B=2", "C=4"} },
		"binary": func(s *Spec) { s.Path = "/bin/sh" },
	} {
		c := a
		change(&c)
		if manifestKey(c) == manifestKey(a) {
			t.Errorf("a different %s kept the same key", name)
		}
	}
}
