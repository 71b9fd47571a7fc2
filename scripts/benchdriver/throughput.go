package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The throughput baseline is a bare MCP server written with the official Go
// SDK: one echo tool behind mcp.NewStreamableHTTPHandler with its default
// options (sessions, answers as event streams). It runs in a process of its
// own, like the gateway, so the load generator's CPU is counted the same
// way on both sides.
const baselineFlag = "serve-go-sdk-echo"

type echoIn struct {
	Text string `json:"text"`
}

// serveBaseline serves the Go SDK echo server on addr until killed.
func serveBaseline(addr string) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-echo", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Send the given text back unchanged."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	return http.ListenAndServe(addr, h)
}

// startBaseline runs this driver again as the baseline server and waits
// until it accepts a session.
func startBaseline() (url string, stop func(), err error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(self, "-"+baselineFlag, addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	url = "http://" + addr + "/"
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return url, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("go-sdk echo server at %s: %w", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type loadResult struct {
	calls, errors int64
	elapsed       time.Duration
	firstErr      error
}

func (l loadResult) perSecond() float64 { return float64(l.calls) / l.elapsed.Seconds() }

// throughput opens sessions HTTP sessions on url, then has each call the
// tool in a loop for d after a warm-up, and counts the answers. A call
// that fails, or answers isError, counts as an error.
func throughput(url string, sessions int, d time.Duration, params any) (loadResult, error) {
	transport := &http.Transport{MaxIdleConnsPerHost: sessions * 2, MaxConnsPerHost: 0}
	defer transport.CloseIdleConnections()
	clients := make([]*httpRPC, sessions)
	for i := range clients {
		c := &httpRPC{url: url, client: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
		if err := c.open(); err != nil {
			return loadResult{}, fmt.Errorf("session %d: %w", i, err)
		}
		clients[i] = c
	}
	var (
		calls, fails atomic.Int64
		counting     atomic.Bool
		stop         atomic.Bool
		errOnce      sync.Once
		firstErr     error
		wg           sync.WaitGroup
	)
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				res, err := c.call("tools/call", params)
				if err == nil && strings.Contains(string(res), `"isError":true`) {
					err = fmt.Errorf("tool answered an error: %s", res)
				}
				if !counting.Load() {
					continue
				}
				if err != nil {
					fails.Add(1)
					errOnce.Do(func() { firstErr = err })
					continue
				}
				calls.Add(1)
			}
		}()
	}
	time.Sleep(d / 5) // warm-up: connections, sessions, caches
	counting.Store(true)
	start := time.Now()
	time.Sleep(d)
	counting.Store(false)
	elapsed := time.Since(start)
	stop.Store(true)
	wg.Wait()
	return loadResult{calls: calls.Load(), errors: fails.Load(), elapsed: elapsed, firstErr: firstErr}, nil
}

// compareThroughput runs the same load against the Go SDK baseline and the
// gateway (call_tool → the hello plugin's echo), alternating, and prints
// each run.
func compareThroughput(gatewayURL string, sessions, rounds int, d time.Duration) error {
	baseURL, stop, err := startBaseline()
	if err != nil {
		return err
	}
	defer stop()
	direct := map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}
	viaGateway := map[string]any{"name": "call_tool", "arguments": map[string]any{"name": "x_hello_echo", "arguments": map[string]any{"text": "hi"}}}
	fmt.Printf("Throughput: %d HTTP sessions calling in a loop for %s, %d rounds alternating, same machine and run.\n\n", sessions, d, rounds)
	fmt.Println("| round | go-sdk echo server (baseline) | gateway → call_tool x_hello_echo | ratio | errors (baseline, gateway) |")
	fmt.Println("|---|---|---|---|---|")
	var errs []error
	for r := 1; r <= rounds; r++ {
		base, err := throughput(baseURL, sessions, d, direct)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		gw, err := throughput(gatewayURL, sessions, d, viaGateway)
		if err != nil {
			return fmt.Errorf("gateway: %w", err)
		}
		fmt.Printf("| %d | %.0f calls/s | %.0f calls/s | ×%.2f | %d, %d |\n", r, base.perSecond(), gw.perSecond(), gw.perSecond()/base.perSecond(), base.errors, gw.errors)
		errs = append(errs, base.firstErr, gw.firstErr)
	}
	fmt.Println()
	if err := errors.Join(errs...); err != nil {
		fmt.Println("first errors:", err)
		fmt.Println()
	}
	return nil
}
