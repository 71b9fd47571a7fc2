package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/config"
)

// BenchmarkCallToolStdio measures one call_tool round trip through a whole
// in-process gateway over stdio to a real SDK plugin process: JSON-RPC framing,
// dispatch, argument validation, supervision and the gRPC hop. Profile it with
// -cpuprofile to see what the gateway itself costs.
func BenchmarkCallToolStdio(b *testing.B) {
	cfg := helloBenchConfig(b, "")
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, hclog.NewNullLogger(), inR, outW, nil) }()
	defer func() {
		inW.Close()
		cancel()
		<-done
		outR.Close()
	}()

	r := bufio.NewReader(outR)
	id := 0
	call := func(method string, params any) string {
		id++
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(msg, '\n')); err != nil {
			b.Fatal(err)
		}
		want := fmt.Sprintf(`"id":%d,`, id)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(line, want) {
				return line
			}
		}
	}
	call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
	echo := map[string]any{"name": "call_tool", "arguments": map[string]any{"name": "x_hello_echo", "arguments": map[string]any{"text": "hi"}}}
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(call("tools/call", echo), `"isError":true`) {
		if time.Now().After(deadline) {
			b.Fatal("hello plugin never answered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	self0, plugins0 := cpuTimes(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := call("tools/call", echo); strings.Contains(res, `"isError":true`) {
			b.Fatalf("call failed: %s", res)
		}
	}
	b.StopTimer()
	self1, plugins1 := cpuTimes(b)
	// Wall time on a shared machine mostly measures the neighbours; CPU per
	// call, on both sides of the gRPC hop, is the comparable figure.
	b.ReportMetric(float64((self1-self0).Microseconds())/float64(b.N), "gateway-cpu-µs/op")
	b.ReportMetric(float64((plugins1-plugins0).Microseconds())/float64(b.N), "plugin-cpu-µs/op")
}

// helloBenchConfig builds the hello plugin and returns a config that starts
// it with the gateway, with extra (such as a listen block) added.
func helloBenchConfig(b *testing.B, extra string) *config.Config {
	b.Helper()
	dir := b.TempDir()
	hello := filepath.Join(dir, "hello-plugin")
	if out, err := exec.Command("go", "build", "-o", hello, "../../plugins/examples/hello").CombinedOutput(); err != nil {
		b.Fatalf("build hello plugin: %v\n%s", err, out)
	}
	cfg, err := config.Parse([]byte(fmt.Sprintf(`%s
gateway { state_dir = %q }
plugin "hello" {
  path       = %q
  auto_start = true
}`, extra, filepath.Join(dir, "state"), hello)), filepath.Join(dir, "bench.hcl"))
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// serveHTTPBench runs a gateway for cfg, which must listen on HTTP, until
// the benchmark ends, and returns its address.
func serveHTTPBench(b *testing.B, cfg *config.Config) string {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, hclog.NewNullLogger(), nil, nil, func(a net.Addr) { ready <- a }) }()
	b.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case a := <-ready:
		return a.String()
	case err := <-done:
		b.Fatal(err)
	case <-time.After(30 * time.Second):
		b.Fatal("gateway did not start")
	}
	return ""
}

// cpuTimes is the CPU time used so far by this process (the gateway and the
// benchmark's client) and by its running child processes (the plugin).
func cpuTimes(b *testing.B) (self, children time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: state ppid ... utime(14) stime(15).
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(f) < 13 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		children += time.Duration(ut+st) * time.Second / clockTicks
	}
	return self, children
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux.
const clockTicks = 100
