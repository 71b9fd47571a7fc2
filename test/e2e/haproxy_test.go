package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// balancer is a real HAProxy in front of gateways, as a Kubernetes Service
// or an operator's load balancer would be: round robin per request, no
// stickiness, a server taken out as soon as its readiness probe fails.
type balancer struct {
	t      *testing.T
	cmd    *exec.Cmd
	URL    string // the MCP endpoint through the balancer
	log    *logSink
	exited chan struct{}
}

// stickyLines pin a legacy session to the replica that answered its
// initialize, as docs/protocol.md tells operators to: the table keys on the
// id's first 64 characters, which hold the sealed id's random nonce.
const stickyLines = `  stick-table type string len 64 size 100k expire 30m
  stick on req.hdr(Mcp-Session-Id)
  stick store-response res.hdr(Mcp-Session-Id)
`

// haproxyConfig balances HTTP requests over servers (host:port), each
// request anywhere unless sticky. /readyz is the check: it turns 503 as soon
// as a gateway begins to drain, while /healthz, the liveness probe, stays
// 200 until the process ends. A request whose connection is refused or
// closed unanswered (a gateway that just exited) is sent to another server.
func haproxyConfig(listen string, servers []string, sticky bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `global
  maxconn 256

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  retries 3
  option redispatch
  retry-on conn-failure empty-response

frontend mcp
  bind %s
  default_backend gateways

backend gateways
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 100ms fastinter 100ms downinter 100ms fall 1 rise 2
`, listen)
	if sticky {
		b.WriteString(stickyLines)
	}
	for i, s := range servers {
		fmt.Fprintf(&b, "  server g%d %s check\n", i, s)
	}
	return b.String()
}

// freePort finds a loopback port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startBalancer runs haproxy in the foreground over the gateways and waits
// until it answers. The test's cleanup stops it by pid.
func startBalancer(t *testing.T, gws []*gateway, sticky bool) *balancer {
	t.Helper()
	bin := testparts.HAProxy(t)
	var servers []string
	for _, g := range gws {
		u, err := url.Parse(g.URL)
		if err != nil {
			t.Fatal(err)
		}
		servers = append(servers, u.Host)
	}
	listen := freePort(t)
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(haproxyConfig(listen, servers, sticky)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", "-f", cfg).CombinedOutput(); err != nil {
		t.Fatalf("haproxy refuses the generated config: %v\n%s", err, out)
	}
	b := &balancer{t: t, URL: "http://" + listen + "/mcp", log: &logSink{}, exited: make(chan struct{})}
	b.cmd = exec.Command(bin, "-db", "-f", cfg)
	b.cmd.Stdout, b.cmd.Stderr = b.log, b.log
	b.cmd.WaitDelay = 2 * time.Second
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start haproxy: %v", err)
	}
	go func() {
		_ = b.cmd.Wait()
		close(b.exited)
	}()
	t.Cleanup(b.stop)

	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 2 * time.Second}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := hc.Get("http://" + listen + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return b
			}
		}
		select {
		case <-b.exited:
			t.Fatalf("haproxy exited at start\n%s", b.log.tail(40))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxy on %s does not answer /readyz with 200 (last: %v)\n%s", listen, err, b.log.tail(40))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends haproxy by its pid: SIGTERM, then SIGKILL if it lingers.
func (b *balancer) stop() {
	select {
	case <-b.exited:
		return
	default:
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.exited:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Signal(syscall.SIGKILL)
		<-b.exited
	}
	if b.t.Failed() {
		b.t.Logf("haproxy log (last lines):\n%s", b.log.tail(40))
	}
}
