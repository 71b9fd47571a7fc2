package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkCallToolHTTP is BenchmarkCallToolStdio over streamable HTTP: one
// call_tool round trip through an in-process gateway listening on loopback
// to a real SDK plugin process, on one kept-alive connection. The client
// writes and reads HTTP/1.1 by hand so that its own cost stays small in a
// -cpuprofile; the difference from the stdio benchmark is the HTTP front.
func BenchmarkCallToolHTTP(b *testing.B) {
	addr := serveHTTPBench(b, helloBenchConfig(b, `listen { http = "127.0.0.1:0" }`))
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	c := &rawHTTP{b: b, conn: conn, r: bufio.NewReader(conn), host: addr}

	c.session = c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if c.session == "" {
		b.Fatal("initialize gave no session")
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	const echo = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"x_hello_echo","arguments":{"text":"hi"}}}}`
	deadline := time.Now().Add(30 * time.Second)
	for c.post(fmt.Sprintf(echo, 1)); strings.Contains(c.last, `"isError":true`); c.post(fmt.Sprintf(echo, 1)) {
		if time.Now().After(deadline) {
			b.Fatal("hello plugin never answered")
		}
		time.Sleep(20 * time.Millisecond)
	}
	self0, plugins0 := cpuTimes(b)
	b.ResetTimer()
	for i := range b.N {
		c.post(fmt.Sprintf(echo, i+2))
		if strings.Contains(c.last, `"isError":true`) || !strings.Contains(c.last, `"id":`+strconv.Itoa(i+2)+`,`) {
			b.Fatalf("call failed: %s", c.last)
		}
	}
	b.StopTimer()
	self1, plugins1 := cpuTimes(b)
	b.ReportMetric(float64((self1-self0).Microseconds())/float64(b.N), "gateway-cpu-µs/op")
	b.ReportMetric(float64((plugins1-plugins0).Microseconds())/float64(b.N), "plugin-cpu-µs/op")
}

// rawHTTP is a minimal HTTP/1.1 client on one connection: enough for plain
// JSON answers with Content-Length, which is what the gateway sends a
// request that streams nothing before its response.
type rawHTTP struct {
	b       *testing.B
	conn    net.Conn
	r       *bufio.Reader
	host    string
	session string
	last    string
	buf     []byte
}

// post sends body and keeps the answer's body in last; it returns the
// answer's Mcp-Session-Id header.
func (c *rawHTTP) post(body string) string {
	c.buf = c.buf[:0]
	c.buf = fmt.Appendf(c.buf, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n", c.host, len(body))
	if c.session != "" {
		c.buf = fmt.Appendf(c.buf, "Mcp-Session-Id: %s\r\n", c.session)
	}
	c.buf = append(c.buf, "\r\n"...)
	c.buf = append(c.buf, body...)
	if _, err := c.conn.Write(c.buf); err != nil {
		c.b.Fatal(err)
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		c.b.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.b.Fatal(err)
	}
	if resp.StatusCode/100 != 2 {
		c.b.Fatalf("HTTP %d: %s", resp.StatusCode, raw)
	}
	c.last = string(raw)
	return resp.Header.Get("Mcp-Session-Id")
}
