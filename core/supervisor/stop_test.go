package supervisor

import (
	"context"
	"errors"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestStopDrainsCallsInFlight(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(*Supervisor) error
	}{
		{"stop", func(s *Supervisor) error { return s.Stop(context.Background()) }},
		{"restart", func(s *Supervisor) error { return s.Restart(context.Background()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := run(t, Spec{AutoStart: true}, fast)
			waitState(t, h.sup, Running, 10*time.Second)
			errc := make(chan error, 1)
			go func() {
				res, err := call(context.Background(), h.sup, "sleep", `{"ms":600}`, false)
				if err == nil && res.Content[0].Text != "slept" {
					err = errors.New("answer " + res.Content[0].Text)
				}
				errc <- err
			}()
			time.Sleep(150 * time.Millisecond)
			if err := tc.stop(h.sup); err != nil {
				t.Fatal(err)
			}
			if err := <-errc; err != nil {
				t.Fatalf("call in flight during %s: %v", tc.name, err)
			}
		})
	}
}

func TestCallCutByOperatorSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		stop       func(*Supervisor) error
	}{
		{"stop", "stopped by an operator", func(s *Supervisor) error { return s.Stop(context.Background()) }},
		{"restart", "restarted by an operator", func(s *Supervisor) error { return s.Restart(context.Background()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := fast
			p.DrainGrace = 200 * time.Millisecond
			h := run(t, Spec{AutoStart: true}, p)
			waitState(t, h.sup, Running, 10*time.Second)
			errc := make(chan error, 1)
			go func() {
				_, err := call(context.Background(), h.sup, "sleep", `{"ms":20000}`, true)
				errc <- err
			}()
			time.Sleep(150 * time.Millisecond)
			if err := tc.stop(h.sup); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-errc:
				var stopped *StoppedError
				if !errors.As(err, &stopped) || stopped.Reason != tc.want || !strings.Contains(err.Error(), `plugin "test" was `+tc.want) {
					t.Fatalf("cut call: %v", err)
				}
				var crash *CrashError
				if errors.As(err, &crash) {
					t.Fatalf("a stop reported as a crash: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("cut call did not end")
			}
		})
	}
}

// A plugin's own error answer is final: only a broken connection may be the
// process dying, worth waiting a moment to see.
func TestPluginErrorIsAnsweredAtOnce(t *testing.T) {
	h := run(t, Spec{AutoStart: true}, fast)
	waitState(t, h.sup, Running, 10*time.Second)
	best := time.Hour
	for i := 0; i < 3; i++ {
		begin := time.Now()
		_, err := call(context.Background(), h.sup, "no-such-tool", `{}`, false)
		if !errors.Is(err, protov1.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
		best = min(best, time.Since(begin))
	}
	if best >= exitWait {
		t.Errorf("an unknown tool took at best %v to answer; it waited for a crash", best)
	}
}

func TestStartTimeoutBoundsTheWholeStart(t *testing.T) {
	p := fast
	p.MaxCrashes = 1
	// Long enough for launch and handshake on a loaded machine, so the start
	// surely ends at the configure that hangs.
	h := run(t, Spec{StartTimeout: 8 * time.Second, Env: []string{"TESTPLUGIN_HANG_CONFIGURE=1"}}, p)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	_, err := call(ctx, h.sup, "echo", `{}`, false)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("call to a plugin whose start hangs: %v (ctx %v)", err, ctx.Err())
	}
	// Said in words of its own, without the cancellation's echo in gRPC's
	// ("stream terminated by RST_STREAM", "context deadline exceeded").
	want := regexp.MustCompile(`last: plugin "test" did not finish starting within start_timeout 8s \(it was at configure\); its stderr: testplugin: pid \d+ hanging in configure as asked \(circuit open until`)
	if !want.MatchString(err.Error()) {
		t.Errorf("error = %v, want it to match %s", err, want)
	}
}

// A plugin started only to learn its tools leaves that mode once it is used
// for real: with idle_timeout 0 it then runs until stopped.
func TestLearningStartEndsWithRealUse(t *testing.T) {
	p := fast
	p.LearnIdle = 200 * time.Millisecond
	h := run(t, Spec{}, p)
	if err := h.sup.Learn(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitState(t, h.sup, Running, 10*time.Second)
	if _, err := call(context.Background(), h.sup, "echo", `{"text":"a"}`, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * p.LearnIdle)
	if st := h.sup.Status(); st.State != Running {
		t.Fatalf("plugin in real use was stopped: %+v", st)
	}
}

func TestPolicyDefaultsApplyPerField(t *testing.T) {
	got := Policy{MaxCrashes: 1, StopGrace: time.Second}.withDefaults()
	want := DefaultPolicy
	want.MaxCrashes, want.StopGrace = 1, time.Second
	if got != want {
		t.Errorf("withDefaults = %+v, want %+v", got, want)
	}
	// A policy with no PingEvery must run, not panic in time.NewTicker.
	h := run(t, Spec{AutoStart: true}, Policy{MaxCrashes: 1})
	waitState(t, h.sup, Running, 10*time.Second)
}

// A failed ping of an earlier process must not count against the one now
// running.
func TestPingOfEarlierProcessIsIgnored(t *testing.T) {
	s := New(Spec{Name: "p"}, fast, Hooks{}, hclog.NewNullLogger())
	o := &owner{plugin: &process{gen: 2}, pinging: true}
	s.pinged(o, pingResult{gen: 1, err: errors.New("old process did not answer")})
	if o.missedPings != 0 || o.pinging {
		t.Errorf("after a stale ping: missed %d, pinging %v", o.missedPings, o.pinging)
	}
}

// The context a start ran under ends with its process: contexts of past
// starts must not pile up for as long as the gateway runs.
func TestStartContextEndsWithItsProcess(t *testing.T) {
	// A parent of a type the context package does not know makes it watch
	// each child in a goroutine until that child is cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	parent := &foreignCtx{Context: ctx, done: ctx.Done()}
	sup := New(Spec{Name: "test", Path: testPlugin, Env: []string{"PATH=" + os.Getenv("PATH")}}, fast, Hooks{}, hclog.NewNullLogger())
	go sup.Run(parent)
	defer func() { cancel(); <-sup.Done() }()
	if err := sup.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := sup.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for watchers() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d contexts of ended starts still watched", watchers())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type foreignCtx struct {
	context.Context
	done <-chan struct{}
}

func (c *foreignCtx) Done() <-chan struct{} { return c.done }
func (c *foreignCtx) Value(any) any         { return nil }

// watchers counts the goroutines the context package runs for children of a
// parent it does not know.
func watchers() int {
	buf := make([]byte, 1<<20)
	return strings.Count(string(buf[:runtime.Stack(buf, true)]), "context.(*cancelCtx).propagateCancel")
}

// Done means the plugin's process is gone, also when the gateway shuts down
// while a start is under way: nothing the start brought up outlives Run.
func TestShutdownDuringStartLeavesNoProcess(t *testing.T) {
	logs := &testparts.Buffer{}
	sup := New(Spec{Name: "slow", Path: testPlugin, Env: []string{"PATH=" + os.Getenv("PATH"), "TESTPLUGIN_HANG_CONFIGURE=1"}},
		fast, Hooks{}, hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info}))
	ctx, cancel := context.WithCancel(context.Background())
	go sup.Run(ctx)
	defer func() { cancel(); <-sup.Done() }()
	if err := sup.Learn(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitLog(t, logs, "hanging in configure")
	m := regexp.MustCompile(`pid (\d+) hanging in configure`).FindStringSubmatch(logs.String())
	pid, _ := strconv.Atoi(m[1])
	cancel()
	<-sup.Done()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("plugin process %d still there once Done is closed (kill 0: %v)", pid, err)
	}
}
