package prometheus

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/internal/testparts"
)

// The shared Prometheus serves deterministic backfilled data starting at t0,
// scrapes itself, a closed port and a small exposition server, and evaluates
// rules that fire, wait and stay quiet.
const (
	t0       = 1700000000 // 2023-11-14T22:13:20Z
	interval = 15         // seconds between backfilled samples
	steps    = 40         // samples t0 … t0+600
	queues   = 30         // queue_depth series, for truncation
)

var shared struct {
	once sync.Once
	srv  *promServer
	app  *httptest.Server
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.srv != nil {
		shared.srv.stop()
	}
	if shared.app != nil {
		shared.app.Close()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines leaked: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// promServer is one Prometheus process the tests started.
type promServer struct {
	url  string
	cmd  *exec.Cmd
	dir  string
	done chan struct{}
}

// stop kills the process by its PID and removes its data.
func (p *promServer) stop() {
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	_ = os.RemoveAll(p.dir)
}

// sharedProm starts the package's Prometheus on first use.
func sharedProm(t *testing.T) *promServer {
	t.Helper()
	shared.once.Do(func() {
		prom, promtool := testparts.Prometheus(t)
		shared.app = httptest.NewServer(http.HandlerFunc(serveExposition))
		shared.srv, shared.err = startShared(prom, promtool, strings.TrimPrefix(shared.app.URL, "http://"))
	})
	if shared.srv == nil {
		t.Fatalf("shared Prometheus is not running: %v", shared.err)
	}
	return shared.srv
}

// serveExposition is a target in OpenMetrics, the format that carries units.
func serveExposition(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/openmetrics-text; version=1.0.0; charset=utf-8")
	fmt.Fprint(w, `# TYPE app_request_seconds histogram
# UNIT app_request_seconds seconds
# HELP app_request_seconds Time taken to serve an app request.
app_request_seconds_bucket{le="0.5"} 3
app_request_seconds_bucket{le="+Inf"} 4
app_request_seconds_sum 1.5
app_request_seconds_count 4
# TYPE app_orders counter
# HELP app_orders Orders the app has processed.
app_orders_total 42 # {trace_id="4bf92f3577b34da6"} 1.0
# EOF
`)
}

// openMetricsData is the backfilled data set: counters with known rates, a
// latency histogram with a known p99, a large gauge and many small series.
func openMetricsData() string {
	var b strings.Builder
	headers := []string{
		"# HELP http_requests Requests served.\n# TYPE http_requests counter\n",
		"# HELP http_request_duration_seconds Request latency.\n# TYPE http_request_duration_seconds histogram\n",
		"# HELP memory_usage_bytes Resident memory.\n# TYPE memory_usage_bytes gauge\n",
		"# HELP queue_depth Items waiting.\n# TYPE queue_depth gauge\n",
	}
	for fi, header := range headers {
		b.WriteString(header)
		for i := 0; i <= steps; i++ {
			ts := t0 + i*interval
			switch fi {
			case 0:
				fmt.Fprintf(&b, "http_requests_total{job=\"checkout\",code=\"200\",instance=\"checkout-1\"} %d %d\n", 150*i, ts)
				fmt.Fprintf(&b, "http_requests_total{job=\"checkout\",code=\"500\",instance=\"checkout-1\"} %d %d\n", 15*i, ts)
				fmt.Fprintf(&b, "http_requests_total{job=\"cart\",code=\"200\",instance=\"cart-1\"} %d %d\n", 30*i, ts)
			case 1:
				for _, bk := range []struct {
					le  string
					per int
				}{{"0.1", 120}, {"0.5", 147}, {"1", 150}, {"+Inf", 150}} {
					fmt.Fprintf(&b, "http_request_duration_seconds_bucket{job=\"checkout\",le=\"%s\"} %d %d\n", bk.le, bk.per*i, ts)
				}
				fmt.Fprintf(&b, "http_request_duration_seconds_sum{job=\"checkout\"} %d %d\n", 30*i, ts)
				fmt.Fprintf(&b, "http_request_duration_seconds_count{job=\"checkout\"} %d %d\n", 150*i, ts)
			case 2:
				fmt.Fprintf(&b, "memory_usage_bytes{job=\"checkout\"} %d %d\n", 1073741824+i*1048576, ts)
			case 3:
				for q := 0; q < queues; q++ {
					fmt.Fprintf(&b, "queue_depth{queue=\"q%02d\"} %d %d\n", q, q, ts)
				}
			}
		}
	}
	b.WriteString("# EOF\n")
	return b.String()
}

const sharedRules = `groups:
  - name: checkout
    rules:
      - alert: CheckoutDown
        expr: vector(1) > 0
        labels: {severity: page, service: checkout}
        annotations:
          summary: Checkout is failing
          description: More than half of checkout requests fail.
      - alert: SlowBurn
        expr: vector(2) > 0
        for: 1h
        labels: {severity: ticket}
      - alert: NeverFires
        expr: vector(0) > 0
      - record: job:http_requests:rate5m
        expr: sum by (job) (rate(http_requests_total[5m]))
  - name: broken
    rules:
      # Three up series meet one vector(1) on no labels: every evaluation
      # fails with a long "many-to-many matching" error.
      - record: broken:up
        expr: vector(1) * on() group_left up
`

func startShared(prom, promtool, appAddr string) (*promServer, error) {
	dir, err := os.MkdirTemp("", "toolgate-prom-")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data.om")
	if err := os.WriteFile(data, []byte(openMetricsData()), 0o600); err != nil {
		return nil, err
	}
	out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", data, filepath.Join(dir, "tsdb")).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("promtool create-blocks-from: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yml"), []byte(sharedRules), 0o600); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [rules.yml]
alerting:
  alertmanagers:
    - static_configs: [{targets: ["127.0.0.1:9"]}]
scrape_configs:
  - job_name: prometheus
    static_configs: [{targets: ["%s"]}]
  - job_name: app
    static_configs: [{targets: ["%s"]}]
  - job_name: dead
    static_configs: [{targets: ["127.0.0.1:1"]}]
`, addr, appAddr)
	return startPrometheus(prom, dir, "http", addr, cfg, filepath.Join(dir, "tsdb"), "--enable-feature=exemplar-storage")
}

// startPrometheus runs Prometheus on addr with config cfg and waits until it
// is ready; scheme is https when extra flags give it a TLS web config.
func startPrometheus(prom, dir, scheme, addr, cfg, tsdb string, extra ...string) (*promServer, error) {
	cfgFile := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(dir, "prometheus.log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	args := append([]string{"--config.file=" + cfgFile, "--storage.tsdb.path=" + tsdb,
		"--storage.tsdb.retention.time=100y", "--web.listen-address=" + addr}, extra...)
	cmd := exec.Command(prom, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start prometheus: %w", err)
	}
	p := &promServer{url: scheme + "://" + addr, cmd: cmd, dir: dir, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	if err := waitReady(p); err != nil {
		p.stop()
		return nil, err
	}
	return p, nil
}

// waitReady polls /-/ready; any HTTP answer (a 401 too) means it listens.
// The certificate is not checked here: the TLS test checks it through the
// plugin.
func waitReady(p *promServer) error {
	logPath := filepath.Join(p.dir, "prometheus.log")
	deadline := time.Now().Add(20 * time.Second)
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // readiness only
	defer client.CloseIdleConnections()
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("prometheus exited at start:\n%s", log)
		default:
		}
		resp, err := client.Get(p.url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(logPath)
	return fmt.Errorf("prometheus not ready within 20s:\n%s", log)
}

// freeAddr returns a loopback address nothing listens on right now.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}

// eventually retries check until it passes or the deadline comes, for state
// Prometheus reaches on its own clock (first scrape, first rule evaluation).
func eventually(t *testing.T, within time.Duration, check func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("not reached within %s: %v", within, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

var errNotYet = errors.New("not yet")
