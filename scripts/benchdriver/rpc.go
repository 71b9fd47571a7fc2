package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
)

// rpc is a minimal MCP client: JSON-RPC over newline-delimited stdio or over
// streamable HTTP, enough to time calls without a client library's overhead.
type rpc interface {
	call(method string, params any) (json.RawMessage, error)
	close()
}

type response struct {
	ID     *int64          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

var nextID atomic.Int64

func request(method string, params any) ([]byte, int64) {
	id := nextID.Add(1)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return b, id
}

func notification(method string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	return b
}

var initParams = map[string]any{
	"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
	"clientInfo": map[string]any{"name": "benchdriver", "version": "1"},
}

type stdioRPC struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startStdio(cmd *exec.Cmd) (*stdioRPC, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &stdioRPC{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := c.call("initialize", initParams); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize %s: %w", cmd.Path, err)
	}
	_, err = c.in.Write(append(notification("notifications/initialized"), '\n'))
	return c, err
}

func (c *stdioRPC) call(method string, params any) (json.RawMessage, error) {
	b, id := request(method, params)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("read answer to %s: %w", method, err)
		}
		var r response
		if json.Unmarshal(line, &r) != nil || r.ID == nil || *r.ID != id {
			continue // notifications and other chatter
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	}
}

func (c *stdioRPC) close() {
	c.in.Close()
	_ = c.cmd.Wait()
}

type httpRPC struct {
	url, session string
	client       *http.Client
	// buf is the line buffer of every answer read, kept between calls so
	// the client's own allocations do not weigh on the figures.
	buf []byte
}

func startHTTP(url string) (*httpRPC, error) {
	c := &httpRPC{url: url, client: &http.Client{}}
	return c, c.open()
}

// open initializes a session.
func (c *httpRPC) open() error {
	if _, err := c.call("initialize", initParams); err != nil {
		return err
	}
	req, _ := http.NewRequest("POST", c.url, bytes.NewReader(notification("notifications/initialized")))
	c.headers(req)
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil
}

func (c *httpRPC) headers(req *http.Request) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
}

func (c *httpRPC) call(method string, params any) (json.RawMessage, error) {
	b, id := request(method, params)
	req, _ := http.NewRequest("POST", c.url, bytes.NewReader(b))
	c.headers(req)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	// A body read to its end lets the transport reuse the connection;
	// closed early, every call would pay for a new one.
	defer func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		c.session = s
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, body)
	}
	if c.buf == nil {
		c.buf = make([]byte, 64<<10)
	}
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(c.buf, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if sse {
			if !bytes.HasPrefix(line, []byte("data:")) {
				continue
			}
			line = bytes.TrimSpace(line[5:])
		}
		var r response
		if json.Unmarshal(line, &r) != nil || r.ID == nil || *r.ID != id {
			continue
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		return r.Result, nil
	}
	return nil, fmt.Errorf("%s: no answer in the response", method)
}

func (c *httpRPC) close() {}
