package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	faultCallers = 8
	faultRounds  = 20
	// callDeadline is every call's timeout_seconds: no answer may come later.
	callDeadline = 10 * time.Second
	// maxCrashes is the supervisor's default: the 5th crash in its window opens the circuit.
	maxCrashes = 5
)

// faultCall is a call the callers make over and over; n makes each unique.
type faultCall struct {
	tool string
	args func(n int) map[string]any
	want func(n int) string
}

type faultCase struct {
	name    string
	plugin  string
	plugins func(*testing.T) string
	calls   []faultCall
}

func TestFaultInjection(t *testing.T) {
	for _, fc := range []faultCase{
		{name: "SDK plugin", plugin: "tp",
			plugins: func(*testing.T) string { return pathPlugin("tp", bins.testplugin, true) },
			calls: []faultCall{
				{tool: "x_tp_sleep", args: func(int) map[string]any { return map[string]any{"ms": 150} }, want: func(int) string { return "slept" }},
				{tool: "x_tp_echo", args: func(n int) map[string]any { return map[string]any{"text": fmt.Sprint("call ", n)} }, want: func(n int) string { return fmt.Sprint("call ", n) }},
			}},
		{name: "mcp-stdio plugin", plugin: "everything",
			plugins: func(t *testing.T) string { return everythingPlugin(t, "everything", true) },
			calls: []faultCall{
				{tool: "x_everything_echo", args: func(n int) map[string]any { return map[string]any{"message": fmt.Sprint("call ", n)} }, want: func(n int) string { return fmt.Sprint("Echo: call ", n) }},
				{tool: "x_everything_trigger-long-running-operation", args: func(int) map[string]any { return map[string]any{"duration": 0.2, "steps": 2} },
					want: func(int) string { return "Long running operation completed. Duration: 0.2 seconds, Steps: 2." }},
			}},
	} {
		t.Run(fc.name, func(t *testing.T) { faultInjection(t, fc) })
	}
}

// tally is what the callers saw.
type tally struct {
	mu          sync.Mutex
	outcomes    map[string]int
	problems    []string
	lastSuccess [faultCallers]time.Time
	slowest     time.Duration
}

func (tl *tally) record(caller int, outcome string, took time.Duration, problem string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.outcomes[outcome]++
	tl.slowest = max(tl.slowest, took)
	if problem != "" && len(tl.problems) < 20 {
		tl.problems = append(tl.problems, problem)
	}
	if outcome == "ok" {
		tl.lastSuccess[caller] = time.Now()
	}
}

// allSucceededSince says whether every caller had a success after t.
func (tl *tally) allSucceededSince(t time.Time) bool {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, s := range tl.lastSuccess {
		if !s.After(t) {
			return false
		}
	}
	return true
}

// classify sorts one answer: a success with the right content, or an error
// that names the plugin and says what happened. Anything else is a problem.
func classify(plugin string, want string, r *result, err error, took time.Duration) (outcome, problem string) {
	switch {
	case err != nil:
		return "no answer", fmt.Sprintf("no answer after %s: %v", took, err)
	case took > callDeadline+time.Second:
		return "late", fmt.Sprintf("answered after %s, past its %s deadline: %q", took, callDeadline, r.text())
	case !r.IsError && r.text() == want:
		return "ok", ""
	case !r.IsError:
		return "wrong content", fmt.Sprintf("answered %q, want %q", r.text(), want)
	}
	text := r.text()
	named := fmt.Sprintf("plugin %q", plugin)
	switch {
	case strings.Contains(text, named+" crashed (killed by signal SIGKILL) during a call to"):
		return "crash error", ""
	case strings.Contains(text, named+" is failed") && strings.Contains(text, "circuit open until"):
		return "circuit open", ""
	case strings.Contains(text, "timed out"):
		return "timeout", fmt.Sprintf("timed out after %s although the plugin restarts in about a second: %q", took, text)
	case strings.Contains(text, "failed in "+named):
		return "call broke", ""
	}
	return "unclear error", fmt.Sprintf("unclear error after %s: %q", took, text)
}

func faultInjection(t *testing.T, fc faultCase) {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	g := startGateway(t, setup{Plugins: fc.plugins(t)})
	c := connectHTTP(t, g.URL)
	tree := findPlugin(ctx, t, g, c, fc.plugin)
	seen := processSet{}

	tl := &tally{outcomes: map[string]int{}}
	stop := make(chan struct{})
	var callers sync.WaitGroup
	for i := range faultCallers {
		callers.Go(func() {
			for n := i; ; n += faultCallers {
				select {
				case <-stop:
					return
				default:
				}
				call := fc.calls[n%len(fc.calls)]
				start := time.Now()
				waitCtx, cancel := context.WithTimeout(ctx, callDeadline+6*time.Second)
				r, err := c.startTool(call.tool, call.args(n), callDeadline).waitResult(waitCtx)
				cancel()
				took := time.Since(start)
				outcome, problem := classify(fc.plugin, call.want(n), r, err, took)
				if problem != "" {
					problem = fmt.Sprintf("caller %d, %s: %s", i, call.tool, problem)
				}
				tl.record(i, outcome, took, problem)
				if outcome != "ok" {
					time.Sleep(20 * time.Millisecond) // an open circuit answers at once
				}
			}
		})
	}
	halt := sync.OnceFunc(func() {
		close(stop)
		callers.Wait()
	})
	defer halt()

	for round := 1; round <= faultRounds; round++ {
		seen.add(tree.Plugin)
		if tree.Server != (proc{}) {
			seen.add(tree.Server)
		}
		time.Sleep(time.Duration(50+rand.IntN(100)) * time.Millisecond) // calls in flight
		kill(t, tree.Plugin, syscall.SIGKILL)
		killed := time.Now()
		crash := (round-1)%maxCrashes + 1

		if crash < maxCrashes {
			c.waitPlugin(ctx, fc.plugin, 15*time.Second, func(st pluginStatus) bool {
				if st.State == "failed" {
					t.Fatalf("round %d: the circuit opened after %d crashes, want it open only at %d: %+v", round, crash, maxCrashes, st)
				}
				return running(st) && st.Pid != tree.Plugin.Pid
			})
		} else {
			checkCircuitOpen(ctx, t, c, fc, tree, killed)
		}
		old := processSet{}
		old.add(tree.Plugin)
		if tree.Server != (proc{}) {
			old.add(tree.Server)
		}
		if err := old.waitGone(time.Second); err != nil {
			t.Fatalf("round %d: the killed plugin's processes: %v", round, err)
		}
		tree = findPlugin(ctx, t, g, c, fc.plugin)
		// Service resumes: every caller gets a success again.
		deadline := time.Now().Add(15 * time.Second)
		for !tl.allSucceededSince(killed) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: not every caller had a success within 15s of the crash; outcomes so far %v", round, tl.outcomes)
			}
			time.Sleep(10 * time.Millisecond)
		}
		g.requireAlive()
	}
	halt()

	st := c.plugin(ctx, fc.plugin)
	if st.Restarts != faultRounds {
		t.Errorf("restarts = %d after %d crashes, want %d", st.Restarts, faultRounds, faultRounds)
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	t.Logf("%d rounds in %s; outcomes %v; slowest answer %s", faultRounds, time.Since(began).Round(time.Millisecond),
		sortedCounts(tl.outcomes), tl.slowest.Round(time.Millisecond))
	for _, p := range tl.problems {
		t.Error(p)
	}
	if tl.outcomes["ok"] == 0 {
		t.Error("no call succeeded")
	}
	if err := seen.waitGone(time.Second); err != nil {
		t.Errorf("processes of earlier rounds: %v", err)
	}
}

// checkCircuitOpen asserts what the crash that fills the window does: the
// plugin is failed (not restarting) with the crash as its last error and a
// cool-down of five minutes, calls are refused at once saying so, and
// core_plugin_restart closes the circuit.
func checkCircuitOpen(ctx context.Context, t *testing.T, c *mcpClient, fc faultCase, tree pluginTree, killed time.Time) {
	t.Helper()
	st := c.waitPlugin(ctx, fc.plugin, 5*time.Second, func(st pluginStatus) bool { return st.State != "running" || st.Pid != tree.Plugin.Pid })
	if st.State != "failed" {
		t.Fatalf("after crash %d within the window the plugin is %q, want failed: %+v", maxCrashes, st.State, st)
	}
	wantReason := fmt.Sprintf("%d failures within 5m0s, last: plugin process killed by signal SIGKILL", maxCrashes)
	if st.LastError != wantReason || st.Pid != 0 {
		t.Errorf("failed plugin status %+v, want last_error %q and no pid", st, wantReason)
	}
	next, err := time.Parse(time.RFC3339, st.NextTry)
	if want := killed.Add(5 * time.Minute); err != nil || next.Before(want.Add(-5*time.Second)) || next.After(want.Add(5*time.Second)) {
		t.Errorf("next_try %q, want about %s (a 5 minute cool-down)", st.NextTry, want.UTC().Format(time.RFC3339))
	}
	var events struct {
		Events []struct {
			To     string `json:"to"`
			Reason string `json:"reason"`
		} `json:"events"`
	}
	c.meta(ctx, "call_tool", map[string]any{"name": "core_events", "arguments": map[string]any{"plugin": fc.plugin, "limit": 1}}, &events)
	if len(events.Events) != 1 || events.Events[0].To != "failed" || events.Events[0].Reason != wantReason {
		t.Errorf("last event %+v, want the move to failed because %q", events.Events, wantReason)
	}
	call := fc.calls[0]
	start := time.Now()
	r, err := c.callTool(ctx, call.tool, call.args(0))
	took := time.Since(start)
	if err != nil || !r.IsError || !strings.Contains(r.text(), fmt.Sprintf("plugin %q is failed", fc.plugin)) ||
		!strings.Contains(r.text(), "circuit open until") || !strings.Contains(r.text(), "core_plugin_restart") {
		t.Errorf("a call with the circuit open answered %+v, %v; want an isError saying the circuit is open and how to close it", r, err)
	}
	if took > 500*time.Millisecond {
		t.Errorf("a call with the circuit open took %s, want an answer at once", took)
	}
	if st := c.plugin(ctx, fc.plugin); st.State != "failed" {
		t.Errorf("with the circuit open the plugin moved on to %q by itself", st.State)
	}
	var restarted pluginStatus
	c.meta(ctx, "call_tool", map[string]any{"name": "core_plugin_restart", "arguments": map[string]any{"name": fc.plugin}}, &restarted)
	if !running(restarted) {
		t.Fatalf("core_plugin_restart left the plugin %+v", restarted)
	}
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
