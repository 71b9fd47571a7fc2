package e2e

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	chaosSessions = 16
	chaosLoad     = 18 * time.Second
	// chaosCallTimeout is every call's timeout_seconds; a call answered later
	// than it (plus slack for a loaded machine) is late, and one the client
	// still waits for chaosHang after it is hung.
	chaosCallTimeout = 5 * time.Second
	chaosHang        = 10 * time.Second
	// chaosKillsPerPlugin stays under the supervisor's five crashes in its
	// window, so the circuit never opens: faults_test covers the circuit.
	chaosKillsPerPlugin = 3
)

// chaosCall is one kind of call the sessions make; n makes each unique.
type chaosCall struct {
	plugin, tool string
	args         func(n int) map[string]any
	want         func(n int) string
}

var chaosCalls = []chaosCall{
	{plugin: "everything", tool: "x_everything_echo",
		args: func(n int) map[string]any { return map[string]any{"message": fmt.Sprint("chaos ", n)} },
		want: func(n int) string { return fmt.Sprint("Echo: chaos ", n) }},
	{plugin: "everything", tool: "x_everything_trigger-long-running-operation",
		args: func(int) map[string]any { return map[string]any{"duration": 1, "steps": 4} },
		want: func(int) string { return "Long running operation completed. Duration: 1 seconds, Steps: 4." }},
	{plugin: "hello", tool: "x_hello_echo",
		args: func(n int) map[string]any { return map[string]any{"text": fmt.Sprint("chaos ", n)} },
		want: func(n int) string { return fmt.Sprint("chaos ", n) }},
	{plugin: "hello", tool: "x_hello_count",
		args: func(int) map[string]any { return map[string]any{"to": 4, "delay_ms": 100} },
		want: func(int) string { return "counted to 4" }},
}

// chaosTally counts what the sessions sent and what came back.
type chaosTally struct {
	mu       sync.Mutex
	sent     int
	answered int
	outcomes map[string]int
	problems []string
}

func (c *chaosTally) record(outcome, problem string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.outcomes[outcome]++
	if outcome != "hung" {
		c.answered++
	}
	if problem != "" && len(c.problems) < 20 {
		c.problems = append(c.problems, problem)
	}
}

// chaosOutcome sorts one answer: the right result, or an isError that names
// the plugin at fault. Anything else, or an answer past the call's deadline,
// is a problem.
func chaosOutcome(c chaosCall, n int, r *gomcp.CallToolResult, err error, took time.Duration) (outcome, problem string) {
	switch {
	case err != nil:
		return "protocol error", fmt.Sprintf("%s: error after %s: %v", c.tool, took, err)
	case took > chaosCallTimeout+3*time.Second:
		return "late", fmt.Sprintf("%s: answered after %s, past its %s deadline: %q", c.tool, took, chaosCallTimeout, goText(r))
	case !r.IsError && goText(r) == c.want(n):
		return "ok", ""
	case !r.IsError:
		return "wrong content", fmt.Sprintf("%s: answered %q, want %q", c.tool, goText(r), c.want(n))
	case strings.Contains(goText(r), fmt.Sprintf("plugin %q", c.plugin)):
		return "error naming the plugin", ""
	}
	return "unclear error", fmt.Sprintf("%s: an error that does not name plugin %q: %q", c.tool, c.plugin, goText(r))
}

// TestChaosUnderLoad runs sessions of the official Go SDK's client, on both
// the session protocol and the stateless one, calling tools of an mcp-stdio
// plugin and an SDK plugin without pause, and giving up on some of them,
// while the plugin processes, the npm server under mcp-stdio among them, are
// SIGKILLed at random and one is frozen past its health check. Every call must be answered in time, with its
// result or an error naming its plugin; afterwards no process of any start
// may be left, and the gateway's goroutines and open files must be back at
// their idle level.
func TestChaosUnderLoad(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true) + pathPlugin("hello", bins.hello, true)})
	c := connectHTTP(t, g.URL)
	everything := findPlugin(ctx, t, g, c, "everything")
	findPlugin(ctx, t, g, c, "hello")
	metricsURL := strings.TrimSuffix(g.URL, "/mcp") + "/metrics"
	idle := settledMetrics(t, metricsURL, nil)
	t.Logf("idle before the load: %v", idle)
	seen := processSet{}
	seen.add(g.tree()...)

	httpClient := &http.Client{Transport: &http.Transport{}}
	defer httpClient.CloseIdleConnections()
	sessions := make([]*gomcp.ClientSession, chaosSessions)
	for i := range sessions {
		version := "2025-11-25"
		if i%2 == 1 {
			version = "" // the SDK's newest, 2026-07-28: no session
		}
		client := gomcp.NewClient(&gomcp.Implementation{Name: fmt.Sprint("chaos-", i), Version: "1.0.0"}, nil)
		cs, err := client.Connect(ctx, &gomcp.StreamableClientTransport{Endpoint: g.URL, HTTPClient: httpClient, MaxRetries: -1},
			&gomcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("session %d: connect: %v", i, err)
		}
		sessions[i] = cs
	}
	defer func() {
		for _, cs := range sessions {
			_ = cs.Close()
		}
	}()

	tl := &chaosTally{outcomes: map[string]int{}}
	loadCtx, stopLoad := context.WithTimeout(ctx, chaosLoad)
	defer stopLoad()
	var callers sync.WaitGroup
	for i, cs := range sessions {
		callers.Go(func() {
			for n := i; loadCtx.Err() == nil; n += chaosSessions {
				call := chaosCalls[rand.IntN(len(chaosCalls))]
				params := &gomcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{
					"name": call.tool, "arguments": call.args(n), "timeout_seconds": chaosCallTimeout.Seconds()}}
				if n%2 == 0 {
					params.Meta = gomcp.Meta{"progressToken": fmt.Sprint("chaos-", n)}
				}
				tl.mu.Lock()
				tl.sent++
				tl.mu.Unlock()
				// Not loadCtx: a call in flight when the load ends must still be answered.
				callCtx, cancel := context.WithTimeout(ctx, chaosCallTimeout+chaosHang)
				// Every eighth call the client gives up on at a random moment
				// (notifications/cancelled, or closing its stream on
				// 2026-07-28), crashes or not.
				abandon, abandoned := context.WithCancel(callCtx)
				if n%8 == 3 {
					time.AfterFunc(time.Duration(rand.IntN(1500))*time.Millisecond, abandoned)
				}
				start := time.Now()
				r, err := cs.CallTool(abandon, params)
				took := time.Since(start)
				hung := callCtx.Err() != nil
				gaveUp := abandon.Err() != nil && !hung
				abandoned()
				cancel()
				if gaveUp {
					tl.record("abandoned by the client", "")
					continue
				}
				if hung {
					tl.record("hung", fmt.Sprintf("%s: no answer after %s", call.tool, took))
					continue
				}
				tl.record(chaosOutcome(call, n, r, err, took))
			}
		})
	}

	// The faults, while the load runs.
	kills := map[string]int{}
	freeze := everything.Server
	var frozeAt time.Time
	for loadCtx.Err() == nil {
		select {
		case <-loadCtx.Done():
		case <-time.After(time.Duration(300+rand.IntN(900)) * time.Millisecond):
		}
		if loadCtx.Err() != nil || chaosLoad-time.Until(deadlineOf(loadCtx)) < time.Second {
			continue
		}
		if frozeAt.IsZero() {
			// Frozen, it keeps its pipes and its process: only the health
			// ping notices, and calls to it wait until their deadline.
			seen.add(freeze)
			kill(t, freeze, syscall.SIGSTOP)
			frozeAt = time.Now()
			t.Logf("froze %v", freeze)
			continue
		}
		victims := map[string][]proc{}
		for _, p := range g.tree() {
			seen.add(p)
			switch {
			case strings.Contains(p.Cmd, bins.hello):
				victims["hello"] = append(victims["hello"], p)
			case strings.Contains(p.Cmd, bins.mcpStdio), strings.Contains(p.Cmd, "mcp-server-everything"):
				if !p.stopped() {
					victims["everything"] = append(victims["everything"], p)
				}
			}
		}
		plugin := []string{"everything", "hello"}[rand.IntN(2)]
		// The frozen plugin's supervisor must see the health pings fail on
		// their own: no kill of it until it has been replaced.
		if plugin == "everything" && freeze.alive() {
			continue
		}
		if kills[plugin] >= chaosKillsPerPlugin || len(victims[plugin]) == 0 {
			continue
		}
		v := victims[plugin][rand.IntN(len(victims[plugin]))]
		if syscall.Kill(v.Pid, syscall.SIGKILL) == nil {
			kills[plugin]++
			t.Logf("killed %v", v)
		}
	}
	callers.Wait()
	if freeze.alive() {
		t.Errorf("the frozen %v was not replaced within %s of its freeze", freeze, time.Since(frozeAt).Round(time.Millisecond))
		_ = syscall.Kill(freeze.Pid, syscall.SIGKILL)
	}
	g.requireAlive()

	tl.mu.Lock()
	t.Logf("%d sessions for %s: %d calls sent, %d answered; outcomes %s; kills %v",
		chaosSessions, chaosLoad, tl.sent, tl.answered, sortedCounts(tl.outcomes), kills)
	for _, p := range tl.problems {
		t.Error(p)
	}
	if tl.answered != tl.sent {
		t.Errorf("%d calls sent, %d answered", tl.sent, tl.answered)
	}
	if tl.outcomes["ok"] == 0 {
		t.Error("no call succeeded")
	}
	tl.mu.Unlock()

	// Both plugins serve again, each from a new process.
	st := c.waitPlugin(ctx, "everything", 30*time.Second, func(st pluginStatus) bool { return running(st) && st.Pid != everything.Plugin.Pid })
	if st.Restarts == 0 {
		t.Errorf("everything: no restart counted after its server froze: %+v", st)
	}
	c.waitPlugin(ctx, "hello", 30*time.Second, running)
	for _, name := range []string{"everything", "hello"} {
		tool, args, want := everythingEcho("after the chaos")
		if name == "hello" {
			tool, args, want = "x_hello_echo", map[string]any{"text": "after the chaos"}, "after the chaos"
		}
		if r, err := c.callTool(ctx, tool, args); err != nil || r.IsError || r.text() != want {
			t.Errorf("%s after the chaos: %+v, %v", tool, r, err)
		}
	}

	// Nothing of an earlier start is left: every process seen is either
	// running now as one of the current plugins, or gone with its group.
	// A process is known by pid and start time: one seen between fork and
	// exec (`env` about to run node) had another command line then.
	type life struct {
		pid   int
		start uint64
	}
	current := map[life]bool{}
	for _, p := range g.tree() {
		current[life{p.Pid, p.Start}] = true
	}
	old := processSet{}
	for p := range seen {
		if !current[life{p.Pid, p.Start}] {
			old.add(p)
		}
	}
	if err := old.waitGone(5 * time.Second); err != nil {
		t.Errorf("processes of killed plugins: %v", err)
	}
	if n := len(g.tree()); n != 3 {
		t.Errorf("the gateway runs %d processes after the chaos, want 3 (two plugins and one npm server): %v", n, g.tree())
	}

	// The sessions are closed; what they cost the gateway is given back.
	for _, cs := range sessions {
		_ = cs.Close()
	}
	httpClient.CloseIdleConnections()
	after := settledMetrics(t, metricsURL, idle)
	t.Logf("idle after the load: %v", after)
	if after.goroutines > idle.goroutines+5 {
		t.Errorf("gateway goroutines: %d idle before the load, %d after it", idle.goroutines, after.goroutines)
	}
	if after.fds > idle.fds+5 {
		t.Errorf("gateway open files: %d idle before the load, %d after it", idle.fds, after.fds)
	}

	seen.add(g.tree()...)
	if err := g.stop(syscall.SIGTERM, 20*time.Second); err != nil {
		t.Errorf("gateway exited with %v after SIGTERM, want status 0", err)
	}
	if err := seen.waitGone(2 * time.Second); err != nil {
		t.Errorf("after the gateway exited: %v", err)
	}
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// gatewayLoad is what the gateway's /metrics says of its own process.
type gatewayLoad struct {
	goroutines, fds int
	rssMiB          float64
}

func (l gatewayLoad) String() string {
	return fmt.Sprintf("%d goroutines, %d open files, %.1f MiB RSS", l.goroutines, l.fds, l.rssMiB)
}

func scrapeLoad(t *testing.T, url string) gatewayLoad {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	var l gatewayLoad
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "go_goroutines":
			l.goroutines = int(v)
		case "process_open_fds":
			l.fds = int(v)
		case "process_resident_memory_bytes":
			l.rssMiB = v / (1 << 20)
		}
	}
	return l
}

// settledMetrics scrapes until two scrapes a moment apart agree on goroutines
// and open files (and, given a baseline, until they are back near it) or ten
// seconds pass: connections and streams end a moment after their clients go.
func settledMetrics(t *testing.T, url string, baseline *gatewayLoad) *gatewayLoad {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last := scrapeLoad(t, url)
	for {
		time.Sleep(300 * time.Millisecond)
		now := scrapeLoad(t, url)
		near := baseline == nil || (now.goroutines <= baseline.goroutines+2 && now.fds <= baseline.fds+2)
		if (now.goroutines == last.goroutines && now.fds == last.fds && near) || time.Now().After(deadline) {
			return &now
		}
		last = now
	}
}
