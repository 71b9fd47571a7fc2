// Package bridge connects an IDE that starts MCP servers as stdio processes
// to a gateway that serves streamable HTTP, so several IDEs (or several
// windows of one) share one gateway and its running plugins instead of each
// starting its own.
//
// The bridge is a transport and nothing else: it adds no tools and reads no
// message beyond what routing needs. Each line from the IDE goes to the
// gateway as is; everything the gateway sends — responses, progress, log
// lines, server-to-client requests, on a request's stream or the listening
// stream — goes back to the IDE as one line. When the gateway restarts, the
// next message meets a 404 for the old session; core/client's Conn then
// opens a new session with the IDE's original initialize and sends the
// message again, so the IDE sees only a log line on stderr.
package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/client"
	"github.com/toolgate/toolgate/core/gateway"
)

// Options configure Run. Only URL is required.
type Options struct {
	URL, Token string
	Logger     hclog.Logger
	HTTPClient *http.Client
	// ReconnectWindow is how long a message waits for a gateway that is down
	// after the bridge reached it (client.DefaultReconnectWindow when 0).
	ReconnectWindow time.Duration
	// ConnectWindow is how long the first message waits for a gateway the
	// bridge never reached (DefaultConnectWindow when 0): long enough for
	// one started at the same moment as the IDE, short enough that an IDE
	// whose gateway is not running hears why at once, not after a long
	// silence.
	ConnectWindow time.Duration
}

// DefaultConnectWindow is Options.ConnectWindow's default.
const DefaultConnectWindow = 5 * time.Second

// drainGrace is how long requests may still run after the IDE closed stdin
// (the gateway's own shutdown grace on stdio).
const drainGrace = 10 * time.Second

// JSON-RPC error codes the bridge answers with when the gateway cannot.
const (
	codeParseError    = -32700
	codeInternalError = -32603
)

type bridge struct {
	conn *client.Conn
	log  hclog.Logger

	outMu sync.Mutex
	out   io.Writer

	// inflight maps a running request's id to its *running.
	inflight sync.Map
	wg       sync.WaitGroup
}

// Run bridges newline-delimited JSON-RPC on in/out to the gateway until in
// ends (the IDE closed it) and the requests it sent are answered, or ctx
// ends, then ends the gateway session.
func Run(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	b := &bridge{log: opts.Logger, out: out}
	if b.log == nil {
		b.log = hclog.NewNullLogger()
	}
	if opts.ConnectWindow == 0 {
		opts.ConnectWindow = DefaultConnectWindow
	}
	conn, err := client.NewConn(client.Options{
		URL: opts.URL, Token: opts.Token, HTTPClient: opts.HTTPClient, Logger: b.log,
		ReconnectWindow: opts.ReconnectWindow, ConnectWindow: opts.ConnectWindow, OnMessage: b.write,
	})
	if err != nil {
		return err
	}
	b.conn = conn

	runCtx, cancel := context.WithCancel(ctx)
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() { readErr <- readLines(runCtx, in, lines) }()

	err = nil
loop:
	for {
		select {
		case line := <-lines:
			b.handle(runCtx, line)
		case err = <-readErr:
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	if err == nil && ctx.Err() == nil {
		// The IDE closed stdin: answer what it already asked before
		// exiting, as `serve --stdio` does, within the same grace. A
		// listen request has no answer to wait for; a signal ends all.
		b.inflight.Range(func(_, v any) bool {
			if r := v.(*running); r.method == "subscriptions/listen" {
				r.stop()
			}
			return true
		})
		drained := make(chan struct{})
		go func() { b.wg.Wait(); close(drained) }()
		grace := time.NewTimer(drainGrace)
		select {
		case <-drained:
		case <-grace.C:
			b.log.Warn("stdin closed; requests still running after the grace are ended", "grace", drainGrace)
		case <-ctx.Done():
		}
		grace.Stop()
	}
	cancel()
	b.wg.Wait()
	if cerr := conn.Close(); err == nil {
		err = cerr
	}
	return err
}

// readLines sends each non-empty line of in until in ends (nil) or fails.
func readLines(ctx context.Context, in io.Reader, lines chan<- []byte) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			select {
			case lines <- t:
			case <-ctx.Done():
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read from the IDE: %w", err)
		}
	}
}

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (m *message) hasID() bool { return len(m.ID) > 0 && string(m.ID) != "null" }

// handle routes one message from the IDE. Requests run concurrently; the
// rest is sent in order, so notifications/initialized reaches the gateway
// before the requests that follow it, and a cancellation after its request.
func (b *bridge) handle(ctx context.Context, line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		b.writeError(nil, codeParseError, "parse error: "+err.Error())
		return
	}
	switch {
	case m.Method == "initialize" && m.hasID():
		// Nothing can go out before the session exists.
		b.request(ctx, line, m.ID, m.Method)
	case m.Method != "" && m.hasID():
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.request(ctx, line, m.ID, m.Method)
		}()
	default:
		if m.Method == "notifications/cancelled" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			if json.Unmarshal(m.Params, &p) == nil {
				if r, ok := b.inflight.Load(key(p.RequestID)); ok {
					r.(*running).cancel()
				}
			}
		}
		if _, err := b.conn.Send(ctx, line, b.write); err != nil && ctx.Err() == nil {
			b.log.Warn("message not delivered to the gateway", "method", m.Method, "error", err)
		}
	}
}

// request forwards one request and writes its response, or an error response
// when the gateway cannot give one — except for a request the IDE cancelled,
// which MCP says gets no answer.
func (b *bridge) request(ctx context.Context, line []byte, id json.RawMessage, method string) {
	r := &running{stateless: client.Stateless(line), method: method}
	ctx, r.stop = context.WithCancel(ctx)
	defer r.stop()
	k := key(id)
	b.inflight.Store(k, r)
	defer b.inflight.Delete(k)

	var lastProgress time.Time
	resp, err := b.conn.Send(ctx, line, func(msg []byte) {
		b.write(msg)
		if isProgress(msg) {
			lastProgress = time.Now()
		}
	})
	var unreachable *client.UnreachableError
	switch {
	case r.cancelled.Load() || ctx.Err() != nil:
	case err == nil:
		gateway.Settle(ctx, lastProgress) // a read of its own for the result
		b.write(resp)
	case errors.Is(err, client.ErrNoResponse):
		b.writeError(id, codeInternalError, "the gateway ended the request without an answer")
	case errors.As(err, &unreachable):
		text := unreachableText(unreachable)
		b.log.Error(text)
		b.writeError(id, codeInternalError, text)
	default:
		b.writeError(id, codeInternalError, err.Error())
	}
}

// unreachableText says what an IDE user can do about a gateway the bridge
// cannot reach, in the answer the IDE shows.
func unreachableText(e *client.UnreachableError) string {
	cause := e.Err.Error()
	var op *net.OpError
	if errors.As(e.Err, &op) && op.Err != nil {
		cause = op.Err.Error() // "connect: connection refused", without the URL again
	}
	if e.Reached {
		return fmt.Sprintf("cannot reach the gateway at %s (%s): it answered before; did it stop? Start it again with `toolgate serve`", e.URL, cause)
	}
	return fmt.Sprintf("cannot reach the gateway at %s (%s): is it running? Start it with `toolgate serve --config FILE` (its listen.http must be this address), or correct the bridge's --url", e.URL, cause)
}

// isProgress reports whether msg is a notifications/progress.
func isProgress(msg []byte) bool {
	var m struct {
		Method string `json:"method"`
	}
	return bytes.Contains(msg, []byte("notifications/progress")) && json.Unmarshal(msg, &m) == nil && m.Method == "notifications/progress"
}

// running is a request being forwarded.
type running struct {
	cancelled atomic.Bool
	// stateless: a 2026-07-28 request, which belongs to no session, so the
	// gateway cannot match a notifications/cancelled to it; ending its HTTP
	// request is how such a request is cancelled.
	stateless bool
	method    string
	stop      context.CancelFunc
}

func (r *running) cancel() {
	r.cancelled.Store(true)
	if r.stateless {
		r.stop()
	}
}

func (b *bridge) writeError(id json.RawMessage, code int, text string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": text}})
	b.write(msg)
}

// write sends one message to the IDE as one line.
func (b *bridge) write(msg []byte) {
	var line bytes.Buffer
	if err := json.Compact(&line, msg); err != nil {
		b.log.Warn("gateway sent a message that is not JSON; dropped", "error", err)
		return
	}
	line.WriteByte('\n')
	b.outMu.Lock()
	defer b.outMu.Unlock()
	if _, err := b.out.Write(line.Bytes()); err != nil {
		b.log.Debug("write to the IDE", "error", err)
	}
}

// key is a request id in a form comparable across spellings.
func key(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}
