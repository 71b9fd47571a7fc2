package gateway

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// httpConn is a bare streamable-HTTP client, to look at exactly what the
// gateway sends: status codes, headers, event streams.
type httpConn struct {
	t      testing.TB
	url    string
	hc     *http.Client
	sid    string
	header http.Header
}

func newHTTPConn(t testing.TB, url string, hc *http.Client) *httpConn {
	if hc == nil {
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		hc = &http.Client{Transport: tr}
	}
	return &httpConn{t: t, url: url, hc: hc, header: http.Header{}}
}

func (c *httpConn) request(method, body string) *http.Request {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set(headerSessionID, c.sid)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	return req
}

func (c *httpConn) do(req *http.Request) *http.Response {
	c.t.Helper()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return resp
}

// post sends one message and returns the status and every message of the
// answer, in order (one for JSON, each event for an event stream).
func (c *httpConn) post(body string) (int, []message) {
	c.t.Helper()
	resp := c.do(c.request(http.MethodPost, body))
	defer resp.Body.Close()
	return resp.StatusCode, readMessages(c.t, resp)
}

func readMessages(t testing.TB, resp *http.Response) []message {
	t.Helper()
	var out []message
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		ev := newEventReader(resp.Body)
		for {
			data, err := ev.next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatalf("read event stream: %v", err)
			}
			out = append(out, decodeMessage(t, data))
		}
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && len(b) > 0 {
		out = append(out, decodeMessage(t, b))
	}
	return out
}

func decodeMessage(t testing.TB, b []byte) message {
	t.Helper()
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %q: %v", b, err)
	}
	return m
}

func (c *httpConn) initialize() {
	c.t.Helper()
	resp := c.do(c.request(http.MethodPost, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	defer resp.Body.Close()
	msgs := readMessages(c.t, resp)
	if resp.StatusCode != http.StatusOK || len(msgs) != 1 || msgs[0].Error != nil {
		c.t.Fatalf("initialize: status %d %+v", resp.StatusCode, msgs)
	}
	c.sid = resp.Header.Get(headerSessionID)
	if c.sid == "" {
		c.t.Fatalf("initialize answered without %s", headerSessionID)
	}
	c.header.Set(headerProtocol, "2025-11-25")
	if status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: status %d, want 202", status)
	}
}

// eventReader reads the data of server-sent events.
type eventReader struct{ r *bufio.Reader }

func newEventReader(r io.Reader) *eventReader { return &eventReader{r: bufio.NewReader(r)} }

func (e *eventReader) next() ([]byte, error) {
	var data []byte
	for {
		line, err := e.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && len(data) > 0 {
				return data, nil
			}
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && len(data) > 0:
			return data, nil
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		}
	}
}
