package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/toolgate/toolgate/core/config"
)

// BenchmarkIdleSessionHeap measures what an open, idle HTTP session keeps on
// the gateway's heap: it opens b.N sessions (initialize, then initialized)
// against an in-process gateway, each over a connection of its own that is
// closed afterwards, and reports the live heap's growth per session. The
// sessions stay open until the gateway stops.
func BenchmarkIdleSessionHeap(b *testing.B) {
	dir := b.TempDir()
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
listen { http = "127.0.0.1:0" }
gateway { state_dir = %q }
`, filepath.Join(dir, "state"))), filepath.Join(dir, "bench.hcl"))
	if err != nil {
		b.Fatal(err)
	}
	url := "http://" + serveHTTPBench(b, cfg) + "/mcp"
	// No connection outlives its request, so the heap holds sessions, not
	// connection buffers.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	open := func() string {
		id := post(b, client, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		post(b, client, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return id
	}
	open() // the first session pays for lazily built state shared by all
	ids := make([]string, 0, b.N)
	before := liveHeap()
	b.ResetTimer()
	for range b.N {
		ids = append(ids, open())
	}
	b.StopTimer()
	after := liveHeap()
	b.ReportMetric(float64(int64(after)-int64(before))/float64(b.N), "heap-B/session")
	runtime.KeepAlive(ids)
}

func post(b *testing.B, client *http.Client, url, session, body string) string {
	req, _ := http.NewRequest("POST", url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		b.Fatalf("HTTP %d", resp.StatusCode)
	}
	return resp.Header.Get("Mcp-Session-Id")
}

// liveHeap is the heap in use once garbage is collected; goroutines that
// finish a closed connection get a moment to end first.
func liveHeap() uint64 {
	time.Sleep(100 * time.Millisecond)
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
