package pluginhost_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// startLogged starts the test plugin with its log captured.
func startLogged(t *testing.T, env ...string) (*pluginhost.Plugin, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	p, err := pluginhost.Start(context.Background(), pluginhost.Config{
		Name: "test", Path: testPlugin, Env: append([]string{"PATH=" + os.Getenv("PATH")}, env...),
		Logger:       hclog.New(&hclog.LoggerOptions{Name: "test", Output: logs, Level: hclog.Info}),
		StartTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return p, logs
}

// A plugin the host stops on purpose (here while it is still in Configure,
// as a stop during a lazy start does) is not reported as an error: the
// process ends killed, which go-plugin alone would log as "[ERROR] plugin
// process exited ... signal: killed". A stop of a running plugin reads the
// same. A crash is still an error.
func TestExitLogSaysWhetherTheHostAskedForIt(t *testing.T) {
	t.Run("killed during configure", func(t *testing.T) {
		p, logs := startLogged(t, "TESTPLUGIN_HANG_CONFIGURE=1")
		configured := make(chan error, 1)
		go func() { configured <- p.Configure(context.Background(), json.RawMessage(`{}`)) }()
		p.Kill()
		if err := <-configured; err == nil {
			t.Error("Configure of a killed plugin succeeded")
		}
		wantAsked(t, logs.String(), p.Pid(), "killed by signal SIGKILL")
	})
	t.Run("stopped", func(t *testing.T) {
		p, logs := startLogged(t)
		p.Stop(2 * time.Second)
		wantAsked(t, logs.String(), p.Pid(), "exit status 0")
	})
	t.Run("did not shut down when asked", func(t *testing.T) {
		p, logs := startLogged(t, "TESTPLUGIN_HANG_ON_EXIT=1")
		p.Stop(200 * time.Millisecond)
		want := "[WARN]  test: plugin process did not shut down when asked and was killed: pid=" + strconv.Itoa(p.Pid()) + ` how="killed by signal SIGKILL"`
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log of a plugin that ignored its stop lacks %q:\n%s", want, logs)
		}
	})
	t.Run("crashed", func(t *testing.T) {
		p, logs := startLogged(t)
		_, _ = p.CallTool(context.Background(), &protov1.CallRequest{Name: "exit", Arguments: json.RawMessage(`{"code":2}`)}, nil)
		<-p.Exited()
		p.Kill() // as the supervisor does once it sees the exit
		want := "[ERROR] test: plugin process exited unexpectedly: pid=" + strconv.Itoa(p.Pid()) + ` how="exit status 2"`
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log of a crash lacks %q:\n%s", want, logs)
		}
	})
}

func wantAsked(t *testing.T, log string, pid int, how string) {
	t.Helper()
	for _, bad := range []string{"[ERROR]", "[WARN]"} {
		if strings.Contains(log, bad) {
			t.Errorf("log of a stop the host asked for has %s lines:\n%s", bad, log)
		}
	}
	want := "[INFO]  test: plugin process stopped as asked: pid=" + strconv.Itoa(pid) + ` how="` + how + `"`
	if !strings.Contains(log, want) {
		t.Errorf("log lacks %q:\n%s", want, log)
	}
}
