package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// message is one JSON-RPC message as a test reads it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// lineConn speaks newline-delimited JSON-RPC to a server under test.
type lineConn struct {
	t     testing.TB
	w     io.WriteCloser
	lines chan []byte
}

func newLineConn(t testing.TB, w io.WriteCloser, r io.Reader) *lineConn {
	c := &lineConn{t: t, w: w, lines: make(chan []byte, 4096)}
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			c.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	return c
}

func (c *lineConn) send(format string, args ...any) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.w, format+"\n", args...); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// recv returns the next message; every line the server writes must be JSON.
func (c *lineConn) recv() message {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("server output ended")
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("server wrote a line that is not JSON-RPC: %q: %v", line, err)
		}
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatalf("no message from server within 10s")
	}
	return message{}
}

// rest drains everything until the server's output ends.
func (c *lineConn) rest() []message {
	c.t.Helper()
	var out []message
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return out
			}
			var m message
			if err := json.Unmarshal(line, &m); err != nil {
				c.t.Fatalf("server wrote a line that is not JSON-RPC: %q", line)
			}
			out = append(out, m)
		case <-time.After(10 * time.Second):
			c.t.Fatalf("server output did not end within 10s")
		}
	}
}

func (c *lineConn) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := c.recv(); m.Error != nil || !bytes.Contains(m.Result, []byte(`"toolgate-test"`)) {
		c.t.Fatalf("initialize: %s %+v", m.Result, m.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// startStdio runs ServeStdio on pipes; the returned channel yields its error.
func startStdio(t *testing.T, f *fixture) (*lineConn, <-chan error) {
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := f.srv.ServeStdio(context.Background(), cr, sw)
		sw.Close()
		done <- err
	}()
	t.Cleanup(func() { cw.Close() })
	return newLineConn(t, cw, sr), done
}

func finish(t *testing.T, c *lineConn, done <-chan error) []message {
	t.Helper()
	c.w.Close()
	rest := c.rest()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio = %v, want nil at end of input", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("ServeStdio did not return after end of input")
	}
	return rest
}

// pipelined writes n echo calls in one write and checks each is answered.
func pipelined(t *testing.T, c *lineConn, n int) {
	t.Helper()
	var batch bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"line %d"}}}`+"\n", i, i)
	}
	go func() { _, _ = c.w.Write(batch.Bytes()) }()
	got := map[string]bool{}
	for len(got) < n {
		m := c.recv()
		if m.Method != "" {
			continue
		}
		var res struct {
			Content []struct{ Text string }
		}
		if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || len(res.Content) != 1 {
			t.Fatalf("answer %s: %s %+v", m.ID, m.Result, m.Error)
		}
		if want := "line " + string(m.ID); res.Content[0].Text != want {
			t.Fatalf("answer to id %s is %q, want %q", m.ID, res.Content[0].Text, want)
		}
		if got[string(m.ID)] {
			t.Fatalf("id %s answered twice", m.ID)
		}
		got[string(m.ID)] = true
	}
}

func TestStdioThousandPipelinedRequests(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	c.initialize()
	pipelined(t, c, 1000)
	if rest := finish(t, c, done); len(rest) != 0 {
		t.Errorf("unexpected messages after all answers: %+v", rest)
	}
}

func TestStdioAnswersCallsInFlightAtEndOfInput(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow"}}`)
	rest := finish(t, c, done)
	if len(rest) != 1 || string(rest[0].ID) != `"s1"` || !bytes.Contains(rest[0].Result, []byte("slow done")) {
		t.Fatalf("after end of input got %+v, want the answer to s1", rest)
	}
}

func TestStdioProgressInOrderBeforeResult(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"steps","arguments":{"n":4},"_meta":{"progressToken":"tok-5"}}}`)
	var seen []string
	for {
		m := c.recv()
		if m.Method == "notifications/progress" {
			var p struct {
				ProgressToken string
				Progress      float64
				Total         float64
				Message       string
			}
			_ = json.Unmarshal(m.Params, &p)
			seen = append(seen, fmt.Sprintf("%s %g/%g %s", p.ProgressToken, p.Progress, p.Total, p.Message))
			continue
		}
		if m.Method == "notifications/message" {
			seen = append(seen, "log "+string(m.Params))
			continue
		}
		seen = append(seen, "result "+string(m.ID))
		break
	}
	want := []string{
		`log {"data":{"starting":true},"level":"info","logger":"steps"}`,
		"tok-5 1/4 step 1", "tok-5 2/4 step 2", "tok-5 3/4 step 3", "tok-5 4/4 step 4", "result 5",
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sequence:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	// Without a progressToken, no progress is sent.
	c.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"steps","arguments":{"n":3}}}`)
	if m := c.recv(); m.Method != "notifications/message" {
		t.Fatalf("first message %+v, want the log line", m)
	}
	if m := c.recv(); string(m.ID) != "6" {
		t.Fatalf("got %s %s, want the result of 6 and no progress", m.Method, m.ID)
	}
	finish(t, c, done)
}

func TestStdioCancelledCallGetsNoAnswer(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","_meta":{"progressToken":7}}}`)
	if m := c.recv(); m.Method != "notifications/progress" {
		t.Fatalf("got %+v, want block's progress", m)
	}
	<-f.started
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user stopped it"}}`)
	select {
	case err := <-f.cancelled:
		if err != context.Canceled {
			t.Fatalf("handler saw %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled did not cancel the handler's context")
	}
	for _, m := range finish(t, c, done) {
		if string(m.ID) == "7" {
			t.Fatalf("cancelled call was answered: %s", m.Result)
		}
	}
}

func TestStdioOversizedLineIsAnsweredAndNextLineSurvives(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.MaxRequestBytes = 1024 })
	c, done := startStdio(t, f)
	c.initialize()
	big := strings.Repeat("x", 5000)
	// The TypeScript SDK writes the id last.
	c.send(`{"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}},"jsonrpc":"2.0","id":41}`, big)
	c.send(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}},"pad":%q}`, "after", big)
	c.send(`{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"echo","arguments":{"text":"small"}}}`)
	for _, id := range []string{"41", "42"} {
		m := c.recv()
		if string(m.ID) != id || m.Error == nil || m.Error.Code != codeInvalidRequest || !strings.Contains(m.Error.Message, "limit of 1024 bytes") {
			t.Fatalf("oversized request %s: got id %s error %+v", id, m.ID, m.Error)
		}
	}
	if m := c.recv(); string(m.ID) != "43" || !bytes.Contains(m.Result, []byte("small")) {
		t.Fatalf("request after oversized ones: %s %s", m.ID, m.Result)
	}
	finish(t, c, done)
}

func TestStdioMalformedInput(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	c.send(`{not json`)
	if m := c.recv(); m.Error == nil || m.Error.Code != codeParseError || string(m.ID) != "null" {
		t.Fatalf("parse error answer: %+v id %s", m.Error, m.ID)
	}
	c.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if m := c.recv(); m.Error == nil || m.Error.Code != codeInvalidRequest {
		t.Fatalf("batch answer: %+v", m.Error)
	}
	// An id that is not UTF-8 is not echoed into an unreadable answer.
	c.send("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}")
	if m := c.recv(); m.Error == nil || m.Error.Code != codeParseError || string(m.ID) != "null" || !strings.Contains(m.Error.Message, "UTF-8") {
		t.Fatalf("answer to a message that is not UTF-8: %+v id %s", m.Error, m.ID)
	}
	c.send("")
	c.initialize()
	finish(t, c, done)
}

func TestStdioEndsWhenContextEnds(t *testing.T) {
	f := newFixture(t, nil)
	cr, cw := io.Pipe()
	defer cw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.srv.ServeStdio(ctx, cr, io.Discard) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio = %v after ctx ended, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return after ctx ended")
	}
}

// TestDetachStdioSubprocess runs the test binary as a stdio server that calls
// DetachStdio, prints to stdout and starts a child on its stdin, then sends
// it 1,000 pipelined requests.
func TestDetachStdioSubprocess(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=stdio")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := newLineConn(t, stdin, stdout)
	c.initialize()
	pipelined(t, c, 1000)
	stdin.Close()
	if rest := c.rest(); len(rest) != 0 {
		t.Errorf("unexpected messages after all answers: %+v", rest)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), strayMarker) {
		t.Errorf("stray print did not reach stderr; stderr:\n%s", stderr.String())
	}
}

func TestStdioInitializeIsAnsweredBeforeWhatFollowsIt(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`)
	if m := c.recv(); string(m.ID) != "0" || !bytes.Contains(m.Result, []byte(`"protocolVersion":"2025-06-18"`)) {
		t.Fatalf("first answer: id %s %s, want initialize's", m.ID, m.Result)
	}
	if m := c.recv(); string(m.ID) != "1" || !bytes.Contains(m.Result, []byte(`"isError":true`)) {
		t.Fatalf("second answer: id %s %s", m.ID, m.Result)
	}
	finish(t, c, done)
}
