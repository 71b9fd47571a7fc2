package prometheus

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestBadPromQLGivesTypeMessageAndPosition(t *testing.T) {
	t.Parallel()
	b := serveShared(t)
	for _, tc := range []struct {
		tool, query string
		pos         Position
		want        []string
	}{
		{"query", `sum(rate(http_requests_total[5m])`, Position{1, 34},
			[]string{"Prometheus rejected the request (bad_data)", "parse error", "at line 1, column 34:", "sum(rate(http_requests_total[5m])\n"}},
		{"query_range", `rate(http_requests_total)`, Position{1, 6},
			[]string{"(bad_data)", `expected type range vector in call to function "rate"`, "\n       ^"}},
	} {
		text, te := failed(t, b, tc.tool, map[string]any{"query": tc.query})
		if te.Kind != "promql" || te.ErrorType != "bad_data" || te.Position == nil || *te.Position != tc.pos {
			t.Errorf("%s %q: error %+v, want position %v", tc.tool, tc.query, te, tc.pos)
		}
		mustContain(t, text, tc.want...)
	}
}

func TestUnreachableServerNamesURLAndCause(t *testing.T) {
	t.Parallel()
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	b := serve(t, map[string]any{"url": "http://" + addr})
	text, te := failed(t, b, "query", map[string]any{"query": "up"})
	if te.Kind != "unreachable" || te.URL != "http://"+addr {
		t.Fatalf("error = %+v", te)
	}
	mustContain(t, text, "Cannot reach Prometheus at http://"+addr, "connection refused")
	if strings.Contains(text, "query=") {
		t.Errorf("the request URL leaked into the message:\n%s", text)
	}
}

// https:// to a Prometheus that serves plain HTTP says which to change.
func TestHTTPSToPlainPrometheus(t *testing.T) {
	t.Parallel()
	u := strings.Replace(sharedProm(t).url, "http://", "https://", 1)
	b := serve(t, map[string]any{"url": u})
	text, te := failed(t, b, "query", map[string]any{"query": "up"})
	if te.Kind != "unreachable" {
		t.Fatalf("error = %+v", te)
	}
	mustContain(t, text, "Cannot reach Prometheus at "+u, "write url with http://")
}

// hangingServer is a Prometheus that never answers: each request waits until
// its client gives up or the test ends. It returns the server's URL.
func hangingServer(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv.URL
}

// A server that answers slower than the plugin's timeout: the call must end
// at the timeout with an error that says so, not hang.
func TestSlowServerTimesOut(t *testing.T) {
	t.Parallel()
	slow := hangingServer(t)
	b := serve(t, map[string]any{"url": slow, "timeout": "300ms"})
	start := time.Now()
	text, te := failed(t, b, "query", map[string]any{"query": "up"})
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("call took %s", elapsed)
	}
	if te.Kind != "timeout" {
		t.Fatalf("error = %+v", te)
	}
	mustContain(t, text, "Prometheus at "+slow+" did not answer within 300ms, the plugin's timeout")
}

// A cancelled call is the caller's doing, not a tool error to report.
func TestCancelledCallReturnsContextError(t *testing.T) {
	t.Parallel()
	slow := hangingServer(t)
	b := serve(t, map[string]any{"url": slow})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res, err := b.CallTool(ctx, &protov1.CallRequest{Name: "query", Arguments: []byte(`{"query":"up"}`)}, &plugintest.Events{})
	if err == nil {
		t.Fatalf("want an error, got result %+v", res)
	}
}

func TestAuthRequired(t *testing.T) {
	t.Parallel()
	prom, _ := testparts.Prometheus(t)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	web := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(web, fmt.Appendf(nil, "basic_auth_users:\n  ops: %s\n", hash), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := startPrometheus(prom, dir, "http", addr, "scrape_configs: []\n", filepath.Join(dir, "tsdb"), "--web.config.file="+web)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)

	// Readiness is only known once the right password gets through.
	b := serve(t, map[string]any{"url": srv.url, "basic_auth": map[string]any{"username": "ops", "password": "s3cret"}})
	eventually(t, 10*time.Second, func() error {
		res := call(t, b, "query", map[string]any{"query": "vector(42)"})
		if text := resultText(res); res.IsError || !strings.Contains(text, "\n42 ") {
			return fmt.Errorf("%w: %s", errNotYet, text)
		}
		return nil
	})
	for _, cfg := range []map[string]any{
		{"url": srv.url},
		{"url": srv.url, "basic_auth": map[string]any{"username": "ops", "password": "wrong"}},
	} {
		b := serve(t, cfg)
		text, te := failed(t, b, "query", map[string]any{"query": "up"})
		if te.Kind != "http" || te.Status != http.StatusUnauthorized {
			t.Fatalf("error = %+v", te)
		}
		mustContain(t, text, "Prometheus at "+srv.url+" refused the request: HTTP 401 Unauthorized", "basic_auth")
	}
}

func TestNotConfigured(t *testing.T) {
	t.Parallel()
	p, _ := newPlugin()
	b := plugintest.ServePlugin(t, p)
	text, _ := failed(t, b, "targets", nil)
	mustContain(t, text, "not configured")
}
