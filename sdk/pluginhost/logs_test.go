package pluginhost_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/pluginhost"
)

// syncBuffer is a log destination tests can read while the plugin writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Once go-plugin serves, it replaces the plugin's stderr with a pipe it
// forwards over gRPC; what a handler logs goes there and must still reach the
// host's log, under the plugin's name, and the kept tail.
func TestHandlerLogsReachHostLogAndTail(t *testing.T) {
	out := &syncBuffer{}
	logger := hclog.New(&hclog.LoggerOptions{Name: "gateway", Output: out, Level: hclog.Info}).Named("myplugin")
	p, err := pluginhost.Start(context.Background(), pluginhost.Config{
		Name: "myplugin", Path: testPlugin, Env: []string{"PATH=" + os.Getenv("PATH")},
		Logger: logger, StartTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(2 * time.Second)
	if got := callText(t, p, "log", `{"text":"tea is ready"}`); got != "logged" {
		t.Fatalf("log tool answered %q", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		log, tail := out.String(), strings.Join(p.Stderr(), "\n")
		logOK := strings.Contains(log, "gateway.myplugin: handler log") && strings.Contains(log, "text=\"tea is ready\"") &&
			strings.Contains(log, "handler stderr: tea is ready")
		tailOK := strings.Contains(tail, "warn: handler log") && strings.Contains(tail, "handler stderr: tea is ready")
		if logOK && tailOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("handler output missing\nhost log:\n%s\ntail:\n%s", log, tail)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A plugin's Health hook is what the host's ping asks, not only whether the
// process answers gRPC.
func TestPingAsksThePluginsHealthHook(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "unhealthy")
	p := start(t, "TESTPLUGIN_UNHEALTHY_FILE="+flag)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.Ping(ctx); err != nil {
		t.Fatalf("healthy plugin failed its ping: %v", err)
	}
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := p.Ping(ctx)
	if err == nil || !strings.Contains(err.Error(), "backend unhealthy as asked") {
		t.Fatalf("ping of an unhealthy backend: %v", err)
	}
}
