package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"
)

// DefaultURL is where a gateway started with the default config listens.
const DefaultURL = "http://127.0.0.1:8700/mcp"

// DefaultReconnectWindow is how long a message waits for an unreachable
// gateway (one that is restarting) before it fails.
const DefaultReconnectWindow = 30 * time.Second

// Options configure a Conn. Only URL is required.
type Options struct {
	// URL is the gateway's streamable HTTP endpoint, e.g. DefaultURL.
	URL string
	// Token is sent as "Authorization: Bearer <token>" when not empty.
	Token string
	// HTTPClient defaults to a client without a timeout: event streams of
	// long calls stay open as long as the call runs.
	HTTPClient *http.Client
	Logger     hclog.Logger
	// ReconnectWindow bounds how long a message waits for a gateway that
	// refuses connections once this Conn has reached it (it is restarting);
	// 0 means DefaultReconnectWindow, negative no wait.
	ReconnectWindow time.Duration
	// ConnectWindow bounds the same wait before the gateway was ever
	// reached, where a gateway that is not up more likely was not started
	// or the URL is wrong than is about to come; 0 means ReconnectWindow.
	ConnectWindow time.Duration
	// OnMessage receives what the gateway sends outside any request's stream
	// (session-wide notifications, server-to-client requests). When it is nil
	// no listening stream is opened.
	OnMessage func(msg []byte)
	// Elicit answers the elicitation/create requests the gateway sends on a
	// request's stream (a confirmation before a tool that may delete data,
	// or a plugin's form) with an elicitation result. When it is set the
	// client declares the elicitation capability.
	Elicit func(ctx context.Context, params json.RawMessage) (result json.RawMessage)
}

// Conn is one MCP session with a gateway over streamable HTTP. It is safe
// for concurrent use: each Send is its own HTTP request.
type Conn struct {
	opts Options
	log  hclog.Logger
	hc   *http.Client

	mu          sync.Mutex
	sessionID   string
	protocol    string
	initParams  json.RawMessage // the first initialize's params, replayed on renewal
	initialized bool            // notifications/initialized went out
	logLevel    json.RawMessage // params of the last logging/setLevel, replayed
	subs        map[string]bool // resources subscribed to, replayed
	renewing    chan struct{}   // closed when the renewal in progress ends
	renewals    int
	reached     bool // the gateway answered once: later refusals are a restart
	listening   bool
	closed      bool
	// stateless is the protocol version of the last request that needed no
	// session (2026-07-28 or later), "" before one.
	stateless string

	listenCtx context.Context
	stop      context.CancelFunc
	wg        sync.WaitGroup
}

// NewConn prepares a connection; nothing is sent until the first Send, which
// must be an initialize request (Client does this for you).
func NewConn(opts Options) (*Conn, error) {
	if opts.URL == "" {
		return nil, &OptionError{Field: "URL", Problem: "is empty"}
	}
	// Checked here, not at the first message: a bridge with a bad --url
	// must fail where the IDE shows its start-up error, not answer
	// initialize with a URL parser's complaint.
	if u, err := url.Parse(opts.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &OptionError{Field: "URL", Problem: fmt.Sprintf("%q is not an http:// or https:// URL with a host, like %s", opts.URL, DefaultURL)}
	}
	if opts.ReconnectWindow == 0 {
		opts.ReconnectWindow = DefaultReconnectWindow
	}
	if opts.ConnectWindow == 0 {
		opts.ConnectWindow = opts.ReconnectWindow
	}
	c := &Conn{opts: opts, log: opts.Logger, hc: opts.HTTPClient, subs: map[string]bool{}}
	if c.log == nil {
		c.log = hclog.NewNullLogger()
	}
	if c.hc == nil {
		c.hc = &http.Client{}
	}
	c.listenCtx, c.stop = context.WithCancel(context.Background())
	return c, nil
}

// SessionID is the gateway's current session ID ("" before initialize).
func (c *Conn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Send delivers one JSON-RPC message. For a request it returns the response
// message; whatever the gateway sends on the request's stream before that
// (progress, log lines, server-to-client requests) goes to onEvent, in order.
// For a notification or response it returns nil once the gateway took it.
//
// A request that gets no response — the call was cancelled, or the gateway
// ended the stream — returns ErrNoResponse; a stream that breaks midway
// returns an error wrapping ErrConnectionLost.
func (c *Conn) Send(ctx context.Context, msg []byte, onEvent func([]byte)) ([]byte, error) {
	env, err := parseMessage(msg)
	if err != nil {
		return nil, err
	}
	if env.isRequest() && env.Method == "initialize" {
		return c.initialize(ctx, msg, env)
	}
	if v := env.statelessVersion(); v != "" {
		// A 2026-07-28 request needs no session: it says who its client is.
		c.mu.Lock()
		c.stateless = v
		c.mu.Unlock()
		return c.post(ctx, msg, env, "", onEvent)
	}
	for attempt := 0; ; attempt++ {
		sid := c.SessionID()
		if sid == "" {
			c.mu.Lock()
			stateless := c.stateless
			c.mu.Unlock()
			if stateless != "" && !env.isRequest() {
				// A notification of a client on 2026-07-28, which has no session.
				return c.post(ctx, msg, env, "", onEvent)
			}
			return nil, ErrNotInitialized
		}
		resp, err := c.post(ctx, msg, env, sid, onEvent)
		if errors.Is(err, errSessionGone) && attempt < 3 {
			if err := c.renew(ctx, sid); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return resp, err
		}
		c.remember(env, resp)
		return resp, nil
	}
}

// remember keeps what a new session must be told again after a renewal.
func (c *Conn) remember(env *message, resp []byte) {
	if env.isNotification() && env.Method == "notifications/initialized" {
		c.mu.Lock()
		c.initialized = true
		start := c.opts.OnMessage != nil && !c.listening && !c.closed
		c.listening = c.listening || start
		c.mu.Unlock()
		if start {
			c.wg.Add(1)
			go c.listen()
		}
		return
	}
	if !env.isRequest() || !succeeded(resp) {
		return
	}
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(env.Params, &p)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch env.Method {
	case "logging/setLevel":
		c.logLevel = bytes.Clone(env.Params)
	case "resources/subscribe":
		c.subs[p.URI] = true
	case "resources/unsubscribe":
		delete(c.subs, p.URI)
	}
}

// post sends msg once the gateway accepts connections, within the
// reconnect window, and reads its answer.
func (c *Conn) post(ctx context.Context, msg []byte, env *message, sid string, onEvent func([]byte)) ([]byte, error) {
	resp, err := c.doHeaders(ctx, http.MethodPost, msg, sid, c.standardHeaders(env))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && sid != "" {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, errSessionGone
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		// The gateway answers a bad request with a JSON-RPC error for its id:
		// that is the answer, and a bridge passes it on.
		if env.isRequest() && ct == "application/json" && sameID(body, env.ID) {
			return bytes.TrimSpace(body), nil
		}
		return nil, httpError(resp.StatusCode, body)
	}
	if !env.isRequest() {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, nil
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return nil, ErrNoResponse
	case ct == "text/event-stream":
		return readResponse(resp.Body, env.ID, onEvent)
	default:
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("%w: read response: %w", ErrConnectionLost, err)
		}
		return bytes.TrimSpace(body), nil
	}
}

// readResponse reads a request's event stream up to its response.
func readResponse(body io.Reader, id json.RawMessage, onEvent func([]byte)) ([]byte, error) {
	var resp []byte
	err := readEvents(body, func(data []byte) error {
		if sameID(data, id) {
			resp = data
			return errDone
		}
		if onEvent != nil {
			onEvent(data)
		}
		return nil
	})
	switch {
	case resp != nil:
		return resp, nil
	case errors.Is(err, ErrMessageTooLarge):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrConnectionLost, err)
	}
	return nil, ErrNoResponse
}

// do makes one HTTP request, retrying while the gateway refuses connections
// (it is restarting) until the reconnect window closes.
func (c *Conn) do(ctx context.Context, method string, body []byte, sid string) (*http.Response, error) {
	return c.doHeaders(ctx, method, body, sid, nil)
}

// standardHeaders are the headers protocol 2026-07-28 requires of a POST:
// the version, and the method and name, which routers read instead of the
// body. A notification of such a client carries the version its requests
// named.
func (c *Conn) standardHeaders(env *message) map[string]string {
	v := env.statelessVersion()
	if v == "" {
		c.mu.Lock()
		v = c.stateless
		sid := c.sessionID
		c.mu.Unlock()
		if v == "" || sid != "" || env.isRequest() {
			return nil
		}
		return map[string]string{"MCP-Protocol-Version": v}
	}
	h := mcp.StandardHeaders(v, mcp.MCPMethod(env.Method), env.Params)
	if h == nil {
		h = map[string]string{}
	}
	h["MCP-Protocol-Version"] = v
	return h
}

func (c *Conn) doHeaders(ctx context.Context, method string, body []byte, sid string, extra map[string]string) (*http.Response, error) {
	c.mu.Lock()
	reached := c.reached
	c.mu.Unlock()
	window := c.opts.ReconnectWindow
	if !reached {
		window = c.opts.ConnectWindow
	}
	deadline := time.Now().Add(window)
	backoff := 50 * time.Millisecond
	for warned := false; ; {
		req, err := http.NewRequestWithContext(ctx, method, c.opts.URL, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("gateway request: %w", err)
		}
		c.headers(req, sid)
		for k, v := range extra {
			req.Header.Set(k, v)
		}
		resp, err := c.hc.Do(req)
		if err == nil {
			c.mu.Lock()
			c.reached = true
			c.mu.Unlock()
			switch {
			case warned && reached:
				c.log.Info("gateway reachable again", "url", c.opts.URL)
			case warned:
				c.log.Info("gateway reachable", "url", c.opts.URL)
			}
			return resp, nil
		}
		if ctx.Err() == nil && isBrokenConnection(err) {
			// The gateway took the request and went away (it stopped or
			// crashed): it was reached, and what it did is unknown.
			return nil, fmt.Errorf("%w (did the gateway stop?); the request may or may not have run: %w", ErrConnectionLost, err)
		}
		left := time.Until(deadline)
		if !isDialError(err) || ctx.Err() != nil || left <= 0 {
			return nil, &UnreachableError{URL: c.opts.URL, Err: err, Reached: reached}
		}
		if !warned {
			if reached {
				c.log.Warn("gateway unreachable; retrying", "url", c.opts.URL, "for", window, "error", err)
			} else {
				c.log.Warn("no gateway answers at the URL yet; waiting for it", "url", c.opts.URL, "for", window, "error", err)
			}
			warned = true
		}
		if err := sleep(ctx, min(backoff, left)); err != nil {
			return nil, &UnreachableError{URL: c.opts.URL, Err: err, Reached: reached}
		}
		backoff = min(backoff*2, time.Second)
	}
}

func (c *Conn) headers(req *http.Request, sid string) {
	req.Header.Set("Content-Type", "application/json")
	if req.Method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	} else {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	c.mu.Lock()
	protocol := c.protocol
	c.mu.Unlock()
	if protocol != "" && sid != "" {
		req.Header.Set("MCP-Protocol-Version", protocol)
	}
	if c.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.opts.Token)
	}
}

// isDialError: the request never reached the gateway, so sending it again
// cannot run anything twice.
func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// isBrokenConnection: the connection closed after the request was sent.
func isBrokenConnection(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
