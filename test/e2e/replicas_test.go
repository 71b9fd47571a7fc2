package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// auditLine is what the replica test reads of a gateway's audit log.
type auditLine struct {
	Session string `json:"session"`
	Tool    string `json:"tool"`
	Outcome string `json:"outcome"`
}

func readAudit(t *testing.T, path string) []auditLine {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l auditLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			continue // a line being written
		}
		out = append(out, l)
	}
	return out
}

// auditClient names which client an audit line came from: the tool tells
// them apart, the session whether the call was on a legacy session.
func auditClient(l auditLine) string {
	switch {
	case l.Tool == "x_tp_echo" && l.Session != "":
		return "go-legacy"
	case l.Tool == "x_tp_sleep" && l.Session == "":
		return "go-2026"
	case l.Tool == "x_tp_sleep":
		return "ts-legacy"
	case l.Tool == "x_tp_env":
		return "go-sticky"
	}
	return "other"
}

// connectReplicaGo connects the official Go SDK client through url, asking for
// version ("" = its newest, 2026-07-28).
func connectReplicaGo(t *testing.T, url, version string) *gomcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c := gomcp.NewClient(&gomcp.Implementation{Name: "replica-test", Version: "1.0.0"}, nil)
	cs, err := c.Connect(ctx, &gomcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}},
		&gomcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("Go SDK client (%q) cannot connect through the balancer: %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() }) // a second Close is harmless
	return cs
}

// goCallTool runs call_tool of a plugin tool and returns its text.
func goCallTool(ctx context.Context, cs *gomcp.ClientSession, tool string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &gomcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		return "", err
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*gomcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError {
		return "", fmt.Errorf("isError: %s", text)
	}
	return text, nil
}

// callTally counts a client loop's calls and keeps its failures.
type callTally struct {
	ok, afterStop atomic.Int64
	mu            sync.Mutex
	failures      []string
}

func (c *callTally) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}

// TestReplicasServeAnySessionThroughABalancer runs three gateways sharing a
// session key behind a real HAProxy balancing each request round robin, with
// no stickiness. The official TypeScript SDK client on a 2025-11-25 session,
// the official Go SDK client on 2026-07-28 and on 2025-11-25 call tools
// concurrently while one replica is stopped with SIGTERM: no call may fail,
// every replica serves every client, and the legacy sessions hop replicas.
func TestReplicasServeAnySessionThroughABalancer(t *testing.T) {
	newKey := func() string {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(key)
	}
	key, next := newKey(), newKey()
	// One key, given each way serve takes it: in the file, in
	// TOOLGATE_SESSION_KEY, and through env() beside the key it is about to
	// rotate to.
	keyed := []setup{
		{Listen: fmt.Sprintf("  session_key = %q", key)},
		{Env: []string{"TOOLGATE_SESSION_KEY=" + key}},
		{Listen: `  session_key = env("REPLICA_SESSION_KEYS")`, Env: []string{"REPLICA_SESSION_KEYS=" + key + "," + next}},
	}
	var gws []*gateway
	var audits []string
	for i, s := range keyed {
		audit := filepath.Join(t.TempDir(), fmt.Sprintf("audit-%d.jsonl", i))
		audits = append(audits, audit)
		s.Plugins = pathPlugin("tp", bins.testplugin, true)
		s.Gateway = fmt.Sprintf("  shutdown_grace = \"20s\"\n  audit_log = %q", audit)
		gws = append(gws, startGateway(t, s))
	}
	for _, g := range gws {
		waitProbe(t, g, "/readyz", http.StatusOK, 60*time.Second)
	}
	lb := startBalancer(t, gws, false)
	sticky := startBalancer(t, gws, true)

	ts := connectHTTP(t, lb.URL)
	goModern := connectReplicaGo(t, lb.URL, "")
	goLegacy := connectReplicaGo(t, lb.URL, "2025-11-25")
	goSticky := connectReplicaGo(t, sticky.URL, "2025-11-25")
	for cs, want := range map[*gomcp.ClientSession]string{goModern: "2026-07-28", goLegacy: "2025-11-25"} {
		if got := cs.InitializeResult().ProtocolVersion; got != want {
			t.Fatalf("Go SDK client negotiated %q through the balancer, want %q", got, want)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stopped atomic.Bool // the replica has exited
	quit := make(chan struct{})
	tallies := map[string]*callTally{"ts-legacy": {}, "go-2026": {}, "go-legacy": {}}
	var wg sync.WaitGroup
	loop := func(kind string, call func(i int) error) {
		c := tallies[kind]
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-quit:
					return
				default:
				}
				after := stopped.Load()
				if err := call(i); err != nil {
					c.fail("call %d: %v", i, err)
					continue
				}
				c.ok.Add(1)
				if after {
					c.afterStop.Add(1)
				}
			}
		})
	}
	for range 2 {
		loop("ts-legacy", func(int) error {
			r, err := ts.callTool(ctx, "x_tp_sleep", map[string]any{"ms": 120})
			if err == nil && (r.IsError || r.text() != "slept") {
				err = fmt.Errorf("answered %+v", r)
			}
			return err
		})
	}
	loop("go-2026", func(int) error {
		text, err := goCallTool(ctx, goModern, "x_tp_sleep", map[string]any{"ms": 80})
		if err == nil && text != "slept" {
			err = fmt.Errorf("answered %q", text)
		}
		return err
	})
	loop("go-legacy", func(i int) error {
		want := fmt.Sprintf("legacy %d", i)
		text, err := goCallTool(ctx, goLegacy, "x_tp_echo", map[string]any{"text": want})
		if err == nil && text != want {
			err = fmt.Errorf("answered %q, want %q", text, want)
		}
		return err
	})
	stopLoops := sync.OnceFunc(func() {
		close(quit)
		wg.Wait()
	})
	// On a failure the calls in flight are cut short rather than waited for.
	defer func() {
		cancel()
		stopLoops()
	}()

	// Every client reaches every replica before one of them goes.
	waitAudits := func(what string, ok func(perReplica []map[string]int) bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			per := make([]map[string]int, len(audits))
			for i, a := range audits {
				per[i] = map[string]int{}
				for _, l := range readAudit(t, a) {
					per[i][auditClient(l)]++
				}
			}
			if ok(per) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: calls per replica %v after 60s", what, per)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitAudits("every client on every replica", func(per []map[string]int) bool {
		for _, m := range per {
			if m["ts-legacy"] == 0 || m["go-2026"] == 0 || m["go-legacy"] == 0 {
				return false
			}
		}
		return true
	})

	// With affinity configured as docs/protocol.md says, a session stays on
	// the replica that opened it.
	for i := range 12 {
		if _, err := goCallTool(ctx, goSticky, "x_tp_env", map[string]any{}); err != nil {
			t.Fatalf("call %d through the sticky balancer: %v", i, err)
		}
	}
	if err := goSticky.Close(); err != nil {
		t.Errorf("close Go SDK client: %v", err)
	}

	// A call that is surely in flight on the replica when it is told to stop.
	victim := gws[1]
	direct := connectHTTP(t, victim.URL)
	slow := direct.startTool("x_tp_sleep", map[string]any{"ms": 1500}, 30*time.Second)
	select {
	case <-slow.Progress:
	case <-ctx.Done():
		t.Fatal("the slow call on the replica to stop reported no progress")
	}
	if err := victim.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	waitProbe(t, victim, "/readyz", http.StatusServiceUnavailable, 2*time.Second)
	if r, err := slow.waitResult(ctx); err != nil || r.IsError || r.text() != "slept" {
		t.Errorf("the call in flight at SIGTERM: %+v, %v", r, err)
	}
	select {
	case <-victim.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the stopped replica did not exit\n%s", victim.log.tail(40))
	}
	if victim.exitErr != nil {
		t.Errorf("the stopped replica exited with %v, want 0", victim.exitErr)
	}
	stopped.Store(true)
	t.Logf("replica 1 drained and exited %s after SIGTERM", time.Since(signalled).Round(time.Millisecond))
	if !victim.log.contains("waiting for calls in flight") {
		t.Errorf("the stopped replica had no call in flight to drain:\n%s", victim.log.tail(40))
	}

	// The survivors take every client's calls.
	deadline := time.Now().Add(60 * time.Second)
	for tallies["ts-legacy"].afterStop.Load() < 10 || tallies["go-2026"].afterStop.Load() < 10 || tallies["go-legacy"].afterStop.Load() < 10 {
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopLoops()
	direct.close()
	ts.close()
	for _, cs := range []*gomcp.ClientSession{goModern, goLegacy} {
		if err := cs.Close(); err != nil {
			t.Errorf("close Go SDK client: %v", err)
		}
	}
	for _, g := range []*gateway{gws[0], gws[2]} {
		if err := g.stop(syscall.SIGTERM, 30*time.Second); err != nil {
			t.Errorf("a replica exited with %v, want 0", err)
		}
	}

	for kind, c := range tallies {
		t.Logf("%s: %d calls, %d after the replica exited, %d failed", kind, c.ok.Load(), c.afterStop.Load(), len(c.failures))
		for _, f := range c.failures {
			t.Errorf("%s: %s", kind, f)
		}
		if c.afterStop.Load() < 10 {
			t.Errorf("%s made %d calls after the replica exited, want at least 10", kind, c.afterStop.Load())
		}
	}
	// Each legacy session is one handle, seen by every replica.
	replicasOf := map[string]map[int]bool{}
	for i, a := range audits {
		lines := readAudit(t, a)
		per := map[string]int{}
		for _, l := range lines {
			per[auditClient(l)]++
			if l.Outcome != "ok" {
				t.Errorf("replica %d audited a call of %s as %q", i, l.Tool, l.Outcome)
			}
			if k := auditClient(l); k == "go-legacy" || k == "ts-legacy" || k == "go-sticky" {
				if replicasOf[k+" "+l.Session] == nil {
					replicasOf[k+" "+l.Session] = map[int]bool{}
				}
				replicasOf[k+" "+l.Session][i] = true
			}
		}
		t.Logf("replica %d served %d calls: %v", i, len(lines), per)
	}
	sessions := map[string]int{}
	for ks, rs := range replicasOf {
		kind, _, _ := strings.Cut(ks, " ")
		if len(rs) == len(audits) {
			sessions[kind]++
		}
	}
	// ts-legacy also counts the direct client's session, on one replica only.
	if sessions["go-legacy"] != 1 || sessions["ts-legacy"] != 1 || sessions["go-sticky"] != 0 {
		t.Errorf("legacy sessions served by all %d replicas: %v, want one Go and one TypeScript session, not the sticky one (audit: %v)", len(audits), sessions, replicasOf)
	}
	stuck := 0
	for ks, rs := range replicasOf {
		if strings.HasPrefix(ks, "go-sticky ") {
			stuck++
			if len(rs) != 1 {
				t.Errorf("the session behind the sticky balancer was served by replicas %v, want one", rs)
			}
		}
	}
	if stuck != 1 {
		t.Errorf("%d sessions called through the sticky balancer, want 1", stuck)
	}
}
