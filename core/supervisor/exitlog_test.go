package supervisor

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/internal/testparts"
)

// A plugin the gateway stops on purpose while it is still starting (an
// operator's core_plugin_stop, the gateway shutting down during a lazy
// start) or when it is idle is logged as a stop, not as an error: the
// operator reads an error only for something that went wrong.
func TestStopsAskedForAreNotLoggedAsErrors(t *testing.T) {
	hang := Spec{Name: "slow", Path: testPlugin, Env: []string{"PATH=" + os.Getenv("PATH"), "TESTPLUGIN_HANG_CONFIGURE=1"}}
	for _, tc := range []struct {
		name string
		spec Spec
		// stop stops the plugin, which a call started; shutdown ends Run.
		stop func(t *testing.T, s *Supervisor, logs *testparts.Buffer, shutdown func())
	}{
		{"operator stop during start", hang, func(t *testing.T, s *Supervisor, logs *testparts.Buffer, _ func()) {
			waitLog(t, logs, "hanging in configure")
			if err := s.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
		}},
		{"shutdown during start", hang, func(t *testing.T, _ *Supervisor, logs *testparts.Buffer, shutdown func()) {
			waitLog(t, logs, "hanging in configure")
			shutdown()
		}},
		{"idle stop", Spec{Name: "slow", Path: testPlugin, Env: []string{"PATH=" + os.Getenv("PATH")}, IdleTimeout: 100 * time.Millisecond},
			func(t *testing.T, s *Supervisor, _ *testparts.Buffer, _ func()) {
				waitState(t, s, Running, 10*time.Second)
				waitState(t, s, Lazy, 10*time.Second)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &testparts.Buffer{}
			sup := New(tc.spec, fast, Hooks{}, hclog.New(&hclog.LoggerOptions{Name: "toolgate", Output: logs, Level: hclog.Info}))
			ctx, cancel := context.WithCancel(context.Background())
			go sup.Run(ctx)
			shutdown := func() { cancel(); <-sup.Done() }
			defer shutdown()
			called := make(chan error, 1)
			go func() {
				_, err := call(context.Background(), sup, "echo", `{"text":"a"}`, false)
				called <- err
			}()
			tc.stop(t, sup, logs, shutdown)
			if err := <-called; tc.spec.IdleTimeout == 0 && !errors.Is(err, ErrUnavailable) {
				t.Errorf("call that started the plugin: %v, want it unavailable", err)
			}
			waitLog(t, logs, "[INFO]  toolgate.slow: plugin process stopped as asked: pid=")
			for _, bad := range []string{"[ERROR]", "[WARN]"} {
				if strings.Contains(logs.String(), bad) {
					t.Errorf("log of a stop the gateway asked for has %s lines:\n%s", bad, logs)
				}
			}
		})
	}
}

// waitLog waits until the log has a line containing want.
func waitLog(t *testing.T, logs *testparts.Buffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("log lacks %q:\n%s", want, logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
