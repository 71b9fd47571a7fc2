// Command benchdriver measures what the gateway adds: it runs the same call
// directly against an MCP server and through toolgate (stdio and HTTP), in one
// run on one machine, and prints a table of latencies and their ratios. It
// also times crash recovery and a lazy plugin's first answer. With -memory N it
// only prints the idle memory of a gateway with N mcp-stdio plugins and hello.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/sdk/pluginhost"
)

func main() {
	// Output piped into a reader that quits early (head) must not kill the
	// driver before it has stopped the gateways it started.
	signal.Ignore(syscall.SIGPIPE)
	n := flag.Int("n", 2000, "calls per measurement")
	bin := flag.String("toolgate", "bin/toolgate", "toolgate binary")
	hello := flag.String("hello", "bin/hello-plugin", "hello plugin binary")
	everything := flag.String("everything", "", "mcp-server-everything executable")
	flag.IntVar(&loadFlags.sessions, "sessions", 32, "HTTP sessions of the throughput runs")
	flag.DurationVar(&loadFlags.duration, "duration", 5*time.Second, "length of one throughput run")
	flag.IntVar(&loadFlags.rounds, "rounds", 3, "throughput runs on each side")
	baseline := flag.String(baselineFlag, "", "serve the Go SDK echo server on this address (the driver starts itself so)")
	memoryOnly := flag.Int("memory", 0, "only print the idle memory of a gateway with this many mcp-stdio plugins and hello")
	flag.Parse()
	if *baseline != "" {
		if err := serveBaseline(*baseline); err != nil {
			fmt.Fprintln(os.Stderr, "benchdriver:", err)
			os.Exit(1)
		}
		return
	}
	if *memoryOnly > 0 {
		if err := idleMemory(*memoryOnly, abs(*bin), abs(*hello), *everything); err != nil {
			fmt.Fprintln(os.Stderr, "benchdriver:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*n, abs(*bin), abs(*hello), *everything); err != nil {
		fmt.Fprintln(os.Stderr, "benchdriver:", err)
		os.Exit(1)
	}
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// loadFlags is the shape of the throughput runs.
var loadFlags struct {
	sessions, rounds int
	duration         time.Duration
}

type row struct {
	name     string
	p50, p99 time.Duration
	base     time.Duration // the direct baseline's p50, for the added-latency column
	cpu      []procCPU     // the serving processes' CPU per call
}

func run(n int, bin, hello, everything string) error {
	dir, err := os.MkdirTemp("", "toolgate-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return err
	}
	cfg := filepath.Join(dir, "bench.hcl")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`
listen { http = "127.0.0.1:%d" }
gateway { state_dir = %q }
plugin "everything" {
  type = "mcp-stdio"
  auto_start = true
  config {
    command = %q
    args = ["stdio"]
  }
}
plugin "hello" {
  path = %q
  auto_start = true
}
%s`, port, filepath.Join(dir, "state"), everything, hello, lazyPlugins(hello))), 0o600); err != nil {
		return err
	}
	echo := map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}
	viaGateway := map[string]any{"name": "call_tool", "arguments": map[string]any{"name": "x_everything_echo", "arguments": map[string]any{"message": "hi"}}}
	viaHello := map[string]any{"name": "call_tool", "arguments": map[string]any{"name": "x_hello_echo", "arguments": map[string]any{"text": "hi"}}}

	direct, err := startStdio(exec.Command(everything, "stdio"))
	if err != nil {
		return fmt.Errorf("direct server: %w", err)
	}
	base, err := measure(direct, direct.cmd.Process.Pid, "tools/call", echo, n)
	direct.close()
	if err != nil {
		return err
	}

	gw := exec.Command(bin, "serve", "--stdio", "--config", cfg)
	gw.Stderr = nil
	stdio, err := startStdio(gw)
	if err != nil {
		return fmt.Errorf("gateway over stdio: %w", err)
	}
	// The first gateway learns the lazy plugins' tools (started in the
	// background once); the HTTP gateway below finds them in the manifests.
	if err := waitTools(stdio, append([]string{"x_everything_echo", "x_hello_echo"}, lazyTools()...)...); err != nil {
		stdio.close()
		return err
	}
	var cpuRows []row
	viaStdio, err := measure(stdio, gw.Process.Pid, "tools/call", viaGateway, n)
	if err == nil {
		var helloRow row
		if helloRow, err = measure(stdio, gw.Process.Pid, "tools/call", viaHello, n); err == nil {
			rows := []row{
				{name: "direct stdio → server-everything echo (baseline)", p50: base.p50, p99: base.p99, cpu: base.cpu},
				{name: "gateway stdio → call_tool x_everything_echo", p50: viaStdio.p50, p99: viaStdio.p99, base: base.p50, cpu: viaStdio.cpu},
				{name: "gateway stdio → call_tool x_hello_echo (SDK plugin)", p50: helloRow.p50, p99: helloRow.p99, cpu: helloRow.cpu},
			}
			printTable(n, rows)
			cpuRows = rows
		}
	}
	stdio.close()
	if err != nil {
		return err
	}

	// HTTP: a gateway process of its own, so the two transports do not share one.
	srv, httpc, err := startIdle(bin, cfg, port, hello, "x_everything_echo", "x_hello_echo")
	if err != nil {
		return err
	}
	defer srv.stop()
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	printMemory(srv.Process.Pid, fmt.Sprintf("idle, %s after start, no calls yet", idleAfter))
	overHTTP, err := measure(httpc, srv.Process.Pid, "tools/call", viaGateway, n)
	if err != nil {
		return err
	}
	overHTTP.name = "gateway HTTP → call_tool x_everything_echo"
	fmt.Printf("| %s | %s | %s | %s |\n\n", overHTTP.name, ms(overHTTP.p50), ms(overHTTP.p99), added(overHTTP.p50, base.p50))
	printCPU(n, append(cpuRows, overHTTP))
	printMemory(srv.Process.Pid, "after the runs above")
	if err := compareThroughput(url, loadFlags.sessions, loadFlags.rounds, loadFlags.duration); err != nil {
		return err
	}
	return lifecycle(httpc, hello)
}

func dialHTTP(url string) (*httpRPC, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := startHTTP(url)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("gateway at %s: %w", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitTools waits until the gateway's catalog has the tools (plugins start in
// the background).
func waitTools(c rpc, names ...string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		missing := ""
		for _, name := range names {
			res, err := c.call("tools/call", map[string]any{"name": "describe_tool", "arguments": map[string]any{"name": name}})
			if err != nil {
				return err
			}
			if strings.Contains(string(res), `"isError":true`) {
				missing = name
				break
			}
		}
		if missing == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("tool %s never appeared", missing)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// measure times n calls, and what the process tree under pid spent on them.
func measure(c rpc, pid int, method string, params any, n int) (row, error) {
	for i := 0; i < n/10; i++ { // warm up
		if _, err := c.call(method, params); err != nil {
			return row{}, err
		}
	}
	lat := make([]time.Duration, n)
	cpu0 := treeCPU(pid)
	for i := range lat {
		start := time.Now()
		res, err := c.call(method, params)
		lat[i] = time.Since(start)
		if err != nil {
			return row{}, err
		}
		if strings.Contains(string(res), `"isError":true`) {
			return row{}, fmt.Errorf("call failed: %s", res)
		}
	}
	cpu := perCall(cpu0, treeCPU(pid), n)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return row{p50: lat[n/2], p99: lat[n*99/100], cpu: cpu}, nil
}

func printTable(n int, rows []row) {
	fmt.Printf("Latency of one tool call, %d calls each, sequential, same machine and run.\n\n", n)
	fmt.Println("| path | p50 | p99 | added at p50 |")
	fmt.Println("|---|---|---|---|")
	for _, r := range rows {
		add := "—"
		if r.base > 0 {
			add = added(r.p50, r.base)
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r.name, ms(r.p50), ms(r.p99), add)
	}
}

func added(p50, base time.Duration) string {
	return fmt.Sprintf("%+.3f ms (×%.2f)", float64(p50-base)/1e6, float64(p50)/float64(base))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// lifecycle times recovery from a crash and a lazy plugin's first answer.
func lifecycle(c rpc, hello string) error {
	get := func() (map[string]any, error) {
		res, err := c.call("tools/call", map[string]any{"name": "call_tool", "arguments": map[string]any{"name": "core_plugin_get", "arguments": map[string]any{"name": "hello"}}})
		if err != nil {
			return nil, err
		}
		var r struct {
			StructuredContent map[string]any `json:"structuredContent"`
		}
		err = json.Unmarshal(res, &r)
		return r.StructuredContent, err
	}
	echo := map[string]any{"name": "call_tool", "arguments": map[string]any{"name": "x_hello_echo", "arguments": map[string]any{"text": "hi"}}}
	restart := map[string]any{"name": "call_tool", "arguments": map[string]any{"name": "core_plugin_restart", "arguments": map[string]any{"name": "hello"}}}
	// crash kills the hello plugin and times the first good call after.
	crash := func() (time.Duration, error) {
		st, err := get()
		if err != nil {
			return 0, err
		}
		pid, ok := st["pid"].(float64)
		if !ok {
			return 0, fmt.Errorf("hello plugin has no pid: %v", st)
		}
		start := time.Now()
		_ = syscall.Kill(int(pid), syscall.SIGKILL)
		for {
			res, err := c.call("tools/call", echo)
			if err != nil {
				return 0, err
			}
			if !strings.Contains(string(res), `"isError":true`) {
				return time.Since(start), nil
			}
			if time.Since(start) > 30*time.Second {
				return 0, errors.New("hello plugin did not come back after a crash")
			}
		}
	}
	// A first crash, after an operator's restart cleared the crash history,
	// then a second one right after recovery, which meets the backoff.
	var recov, repeat []time.Duration
	for i := 0; i < 3; i++ {
		if _, err := c.call("tools/call", restart); err != nil {
			return err
		}
		d, err := crash()
		if err != nil {
			return err
		}
		recov = append(recov, d)
		if d, err = crash(); err != nil {
			return err
		}
		repeat = append(repeat, d)
	}
	sort.Slice(repeat, func(i, j int) bool { return repeat[i] < repeat[j] })
	sort.Slice(recov, func(i, j int) bool { return recov[i] < recov[j] })

	// Lazy start: the first call to a lazy plugin known only from its
	// manifest starts it and answers.
	var lazy []time.Duration
	for _, tool := range lazyTools() {
		start := time.Now()
		res, err := c.call("tools/call", map[string]any{"name": "call_tool", "arguments": map[string]any{"name": tool, "arguments": map[string]any{"text": "hi"}}})
		if err != nil {
			return err
		}
		if strings.Contains(string(res), `"isError":true`) {
			return fmt.Errorf("lazy call failed: %s", res)
		}
		lazy = append(lazy, time.Since(start))
	}
	// The plugin's own start (exec, handshake, configure), apart from the gateway.
	var own []time.Duration
	for i := 0; i < 5; i++ {
		start := time.Now()
		p, err := pluginhost.Start(context.Background(), pluginhost.Config{Name: "hello", Path: hello, Env: []string{"PATH=" + os.Getenv("PATH")}})
		if err != nil {
			return err
		}
		if err := p.Configure(context.Background(), json.RawMessage(`{}`)); err != nil {
			return err
		}
		own = append(own, time.Since(start))
		p.Stop(time.Second)
	}
	sort.Slice(own, func(i, j int) bool { return own[i] < own[j] })
	fmt.Println("| lifecycle (hello plugin) | median | max |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| SIGKILL → first successful call after restart (3 runs) | %s | %s |\n", ms(recov[1]), ms(recov[2]))
	fmt.Printf("| the same for a second crash right after recovery, which meets the backoff (3 runs) | %s | %s |\n", ms(repeat[1]), ms(repeat[2]))
	fmt.Printf("| lazy plugin: first call_tool answer, start included (%d runs) | %s | %s |\n", len(lazy), ms(median(lazy)), ms(maxOf(lazy)))
	fmt.Printf("| plugin's own start: exec + handshake + configure (5 runs) | %s | %s |\n", ms(own[2]), ms(own[4]))
	return nil
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func maxOf(d []time.Duration) time.Duration {
	m := d[0]
	for _, x := range d {
		m = max(m, x)
	}
	return m
}

const lazyCount = 5

// lazyPlugins configures lazy copies of the hello plugin, one per sample.
func lazyPlugins(hello string) string {
	var b strings.Builder
	for i := 1; i <= lazyCount; i++ {
		fmt.Fprintf(&b, "plugin \"lazy%d\" {\n  path = %q\n}\n", i, hello)
	}
	return b.String()
}

func lazyTools() []string {
	var out []string
	for i := 1; i <= lazyCount; i++ {
		out = append(out, fmt.Sprintf("x_lazy%d_echo", i))
	}
	return out
}
