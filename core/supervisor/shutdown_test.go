package supervisor

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/internal/testparts"
)

// A call waiting for its plugin to start is answered as soon as the gateway
// begins to shut down, not at the end of the grace given to calls in flight,
// and the start is abandoned then: its process is gone before Run ends.
func TestBeginShutdownAnswersCallsWaitingForAStart(t *testing.T) {
	logs := &testparts.Buffer{}
	// A start that would hang for an hour: only the shutdown can end it.
	h := runLogged(t, Spec{Name: "slow", StartTimeout: time.Hour, Env: []string{"TESTPLUGIN_HANG_CONFIGURE=1"}}, fast,
		hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info}))
	called := make(chan error, 1)
	go func() {
		_, err := call(context.Background(), h.sup, "echo", `{"text":"a"}`, false)
		called <- err
	}()
	waitLog(t, logs, "hanging in configure")
	pid := regexp.MustCompile(`pid (\d+) hanging in configure`).FindStringSubmatch(logs.String())[1]

	h.sup.BeginShutdown()
	select {
	case err := <-called:
		var un *UnavailableError
		if !errors.As(err, &un) || un.Plugin != "slow" ||
			!strings.Contains(err.Error(), `plugin "slow" is stopping: the gateway is shutting down, so its start was abandoned`) {
			t.Errorf("call waiting for the start: %v, want it told the gateway is shutting down", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the call waiting for the start got no answer once the shutdown began")
	}
	waitLog(t, logs, "plugin process stopped as asked: pid="+pid)
	waitGone(t, pid)
	if st := h.sup.Status(); st.State != Stopped {
		t.Errorf("state once the start was abandoned: %s, want stopped", st.State)
	}
	// Nothing starts it again while the gateway shuts down.
	if _, err := call(context.Background(), h.sup, "echo", `{"text":"b"}`, false); !errors.Is(err, ErrUnavailable) ||
		!strings.Contains(err.Error(), "the gateway is shutting down") {
		t.Errorf("call after the shutdown began: %v", err)
	}
	if err := h.sup.Start(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("start after the shutdown began: %v", err)
	}
	if got := strings.Join(h.transitions(), ","); got != "starting,stopped" {
		t.Errorf("transitions = %s, want the one start, then stopped", got)
	}
}

// A running plugin goes on serving once the shutdown begins: calls in flight,
// and calls made during the grace, still get their answers.
func TestBeginShutdownKeepsRunningPluginsServing(t *testing.T) {
	h := run(t, Spec{AutoStart: true}, fast)
	waitState(t, h.sup, Running, 10*time.Second)
	h.sup.BeginShutdown()
	res, err := call(context.Background(), h.sup, "echo", `{"text":"still here"}`, false)
	if err != nil || res.Content[0].Text != "still here" {
		t.Fatalf("call to a running plugin after the shutdown began: %+v, %v", res, err)
	}
	if st := h.sup.Status(); st.State != Running {
		t.Errorf("state after the shutdown began: %s, want running until Run ends", st.State)
	}
}

// waitGone waits until process pid no longer exists, reaped too.
func waitGone(t *testing.T, pid string) {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !errors.Is(syscall.Kill(n, 0), syscall.ESRCH) {
		if time.Now().After(deadline) {
			t.Fatalf("plugin process %d still there", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
