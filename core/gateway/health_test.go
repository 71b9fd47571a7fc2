package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// probe sends one request to a probe path with whatever Host the test gives
// and returns the status and body.
func probe(t *testing.T, base, method, path, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if cc := resp.Header.Get("Cache-Control"); (path == healthPath || path == readyPath) && cc != "no-store" {
		t.Errorf("%s %s: Cache-Control %q, want no-store", method, path, cc)
	}
	return resp.StatusCode, string(b)
}

func TestProbesSkipAccessChecks(t *testing.T) {
	var notReady atomic.Pointer[error]
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"s3cret"}
		o.Ready = func() error {
			if p := notReady.Load(); p != nil {
				return *p
			}
			return nil
		}
	})
	base := startHTTP(t, f).URL

	// Kubelet probes come with the pod IP as Host and no token; HAProxy's
	// default check is OPTIONS. None of that may matter.
	for _, tc := range []struct{ method, host string }{
		{http.MethodGet, ""},
		{http.MethodGet, "10.1.2.3:8700"},
		{http.MethodHead, "evil.example"},
		{http.MethodOptions, "[fd00::7]:8700"},
		{http.MethodPost, "10.1.2.3"},
	} {
		for _, path := range []string{healthPath, readyPath} {
			status, body := probe(t, base, tc.method, path, tc.host)
			want := "ok\n"
			if tc.method == http.MethodHead {
				want = ""
			}
			if status != http.StatusOK || body != want {
				t.Errorf("%s %s (Host %q) = %d %q, want 200 %q", tc.method, path, tc.host, status, body, want)
			}
		}
	}
	// The checks still hold everywhere else.
	if status, _ := probe(t, base, http.MethodGet, "/mcp", "evil.example"); status != http.StatusForbidden {
		t.Errorf("GET /mcp with a foreign Host = %d, want 403", status)
	}
	if status, _ := probe(t, base, http.MethodGet, "/mcp", ""); status != http.StatusUnauthorized {
		t.Errorf("GET /mcp without a token = %d, want 401", status)
	}

	secret := errors.New(`auto_start plugin "payroll-db" is failed`)
	notReady.Store(&secret)
	status, body := probe(t, base, http.MethodGet, readyPath, "10.1.2.3")
	if status != http.StatusServiceUnavailable || body != "unavailable\n" {
		t.Errorf("/readyz with a plugin down = %d %q, want 503 %q", status, body, "unavailable\n")
	}
	if status, _ := probe(t, base, http.MethodGet, healthPath, ""); status != http.StatusOK {
		t.Errorf("/healthz with a plugin down = %d, want 200: the process is alive", status)
	}
	notReady.Store(nil)
	if status, _ := probe(t, base, http.MethodGet, readyPath, ""); status != http.StatusOK {
		t.Errorf("/readyz once the plugin is back = %d, want 200", status)
	}
}

func TestReadinessChangesAreLogged(t *testing.T) {
	var logs bytes.Buffer
	sink := &syncWriter{w: &logs}
	down := errors.New(`auto_start plugin "k8s" is starting`)
	var fail atomic.Bool
	fail.Store(true)
	f := newFixture(t, func(o *Options) {
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: sink, Level: hclog.Info})
		o.Ready = func() error {
			if fail.Load() {
				return down
			}
			return nil
		}
	})
	base := startHTTP(t, f).URL
	for range 3 {
		probe(t, base, http.MethodGet, readyPath, "")
	}
	fail.Store(false)
	probe(t, base, http.MethodGet, readyPath, "")
	probe(t, base, http.MethodGet, readyPath, "")
	sink.mu.Lock()
	got := logs.String()
	sink.mu.Unlock()
	if n := strings.Count(got, "not ready to take calls"); n != 1 || !strings.Contains(got, `reason="auto_start plugin \"k8s\" is starting"`) {
		t.Errorf("want one not-ready line with the reason, got %d:\n%s", n, got)
	}
	if n := strings.Count(got, "ready to take calls") - strings.Count(got, "not ready to take calls"); n != 1 {
		t.Errorf("want one ready line, got %d:\n%s", n, got)
	}
}

func TestHandlersMayNotTakeProbePaths(t *testing.T) {
	for _, pattern := range []string{"/healthz", "GET /readyz", "GET example.com/healthz", "example.com/readyz"} {
		_, err := buildFixture(func(o *Options) {
			o.Handlers = map[string]http.Handler{pattern: http.NotFoundHandler()}
		})
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(oe.Problem, "served by the gateway itself") {
			t.Errorf("Handlers[%q]: New = %v, want an OptionError about the probe path", pattern, err)
		}
	}
	if _, err := buildFixture(func(o *Options) {
		o.Handlers = map[string]http.Handler{"GET /healthz/deep": http.NotFoundHandler(), "/": http.NotFoundHandler()}
	}); err != nil {
		t.Errorf("handlers beside the probe paths: New = %v, want accepted", err)
	}
}

// TestShutdownFailsReadinessThenDrains is the rollout order on one gateway:
// when ctx ends /readyz answers 503 at once, the listener keeps serving, and
// the call in flight still gets its answer.
func TestShutdownFailsReadinessThenDrains(t *testing.T) {
	release := make(chan struct{})
	running := make(chan struct{})
	f := newFixture(t, func(o *Options) {
		o.ShutdownGrace = 20 * time.Second
		o.Tools = append(o.Tools, Tool{Name: "gate", Description: "Answers when the test lets it.",
			Handle: func(ctx context.Context, _ json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
				close(running)
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: "gate done"}}}, nil
			}})
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrs := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- f.srv.ServeHTTP(ctx, "127.0.0.1:0", func(a net.Addr) { addrs <- a }) }()
	base := "http://" + (<-addrs).String()
	if status, _ := probe(t, base, http.MethodGet, readyPath, ""); status != http.StatusOK {
		t.Fatalf("/readyz before shutdown = %d, want 200", status)
	}

	c := newHTTPConn(t, base+"/mcp", nil)
	c.initialize()
	type answer struct {
		status int
		msgs   []message
	}
	answered := make(chan answer, 1)
	go func() {
		status, msgs := c.post(callBody(7, "gate", "", ""))
		answered <- answer{status, msgs}
	}()
	<-running

	cancel()
	deadline := time.Now().Add(2 * time.Second)
	for {
		status, _ := probe(t, base, http.MethodGet, readyPath, "")
		if status == http.StatusServiceUnavailable {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still %d 2s after shutdown began", status)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if status, _ := probe(t, base, http.MethodGet, healthPath, ""); status != http.StatusOK {
		t.Errorf("/healthz while draining = %d, want 200", status)
	}
	select {
	case err := <-served:
		t.Fatalf("ServeHTTP returned (%v) with a call in flight", err)
	default:
	}

	close(release)
	a := <-answered
	if a.status != http.StatusOK || len(a.msgs) != 1 || a.msgs[0].Error != nil || !strings.Contains(string(a.msgs[0].Result), "gate done") {
		t.Errorf("the call in flight answered %d %+v, want its result", a.status, a.msgs)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeHTTP = %v, want nil after a graceful shutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeHTTP did not return after the last call ended")
	}
}
