package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"
)

// initialize starts a session with the caller's initialize request and
// keeps its params for renewals.
func (c *Conn) initialize(ctx context.Context, msg []byte, env *message) ([]byte, error) {
	resp, sid, protocol, err := c.handshake(ctx, msg, env.ID)
	if err != nil {
		return resp, err
	}
	c.mu.Lock()
	c.sessionID, c.protocol = sid, protocol
	c.initParams = append(json.RawMessage(nil), env.Params...)
	c.initialized = false
	c.mu.Unlock()
	return resp, nil
}

// handshake posts an initialize request without a session and returns the
// response with the session ID and protocol version it set up. A JSON-RPC
// error response is returned as the response, with no error.
func (c *Conn) handshake(ctx context.Context, msg []byte, id json.RawMessage) (resp []byte, sid, protocol string, err error) {
	r, err := c.do(ctx, http.MethodPost, msg, "")
	if err != nil {
		return nil, "", "", err
	}
	defer r.Body.Close()
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case ct == "text/event-stream" && r.StatusCode < 400:
		resp, err = readResponse(r.Body, id, nil)
	default:
		resp, err = io.ReadAll(io.LimitReader(r.Body, 1<<20))
	}
	if err != nil {
		return nil, "", "", fmt.Errorf("initialize: %w", err)
	}
	if r.StatusCode >= 400 && !sameID(resp, id) {
		return nil, "", "", httpError(r.StatusCode, resp)
	}
	var result struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(resp, &result) == nil && result.Result != nil {
		protocol = result.Result.ProtocolVersion
	}
	return resp, r.Header.Get("Mcp-Session-Id"), protocol, nil
}

// renew replaces a session the gateway no longer knows (it restarted) with
// a new one set up like the first: initialize with the same params, then
// initialized, the log level and the resource subscriptions. Concurrent
// callers that saw the same stale session share one renewal.
func (c *Conn) renew(ctx context.Context, stale string) error {
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return ErrClosed
	case c.sessionID != stale:
		c.mu.Unlock()
		return nil
	case c.renewing != nil:
		wait := c.renewing
		c.mu.Unlock()
		select {
		case <-wait:
			return nil // the caller retries with whatever session is current
		case <-ctx.Done():
			return ctx.Err()
		}
	case c.initParams == nil:
		c.mu.Unlock()
		return ErrNotInitialized
	}
	done := make(chan struct{})
	c.renewing = done
	c.renewals++
	n := c.renewals
	params, initialized := c.initParams, c.initialized
	level, subs := c.logLevel, make([]string, 0, len(c.subs))
	for uri := range c.subs {
		subs = append(subs, uri)
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.renewing = nil
		c.mu.Unlock()
		close(done)
	}()

	id := json.RawMessage(fmt.Sprintf(`"toolgate-renew-%d"`, n))
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": params})
	resp, sid, protocol, err := c.handshake(ctx, msg, id)
	if err != nil {
		return fmt.Errorf("renew session: %w", err)
	}
	if !succeeded(resp) || sid == "" {
		return fmt.Errorf("renew session: gateway refused initialize: %s", resp)
	}
	c.mu.Lock()
	c.sessionID, c.protocol = sid, protocol
	c.mu.Unlock()
	c.log.Info("gateway session lost (the gateway restarted?); started a new one", "old", stale, "new", sid)

	if !initialized {
		return nil
	}
	replay := [][]byte{[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)}
	if level != nil {
		m, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("toolgate-renew-%d-level", n), "method": "logging/setLevel", "params": level})
		replay = append(replay, m)
	}
	for i, uri := range subs {
		m, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("toolgate-renew-%d-sub-%d", n, i), "method": "resources/subscribe", "params": map[string]string{"uri": uri}})
		replay = append(replay, m)
	}
	for _, m := range replay {
		env, _ := parseMessage(m)
		if _, err := c.post(ctx, m, env, sid, nil); err != nil {
			return fmt.Errorf("renew session: replay %s: %w", env.Method, err)
		}
	}
	return nil
}

// listen keeps the session's listening stream open, reopening it when it
// ends, until Close. A gateway without one (405) is not asked again.
func (c *Conn) listen() {
	defer c.wg.Done()
	ctx := c.listenCtx
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		sid := c.SessionID()
		opened := time.Now()
		err := c.listenOnce(ctx, sid)
		var he *HTTPError
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, errSessionGone):
			if err := c.renew(ctx, sid); err != nil {
				c.log.Debug("listening stream: renew session", "error", err)
			} else {
				continue
			}
		case errors.As(err, &he) && he.Status == http.StatusMethodNotAllowed:
			c.log.Debug("gateway has no listening stream")
			return
		case err != nil:
			c.log.Debug("listening stream ended", "error", err)
		}
		if time.Since(opened) > 5*time.Second {
			backoff = 50 * time.Millisecond
		}
		if sleep(ctx, backoff) != nil {
			return
		}
		backoff = min(backoff*2, 2*time.Second)
	}
}

func (c *Conn) listenOnce(ctx context.Context, sid string) error {
	resp, err := c.do(ctx, http.MethodGet, nil, sid)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return errSessionGone
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return httpError(resp.StatusCode, body)
	}
	return readEvents(resp.Body, func(data []byte) error {
		c.opts.OnMessage(data)
		return nil
	})
}

// Close stops the listening stream and ends the session at the gateway.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	sid := c.sessionID
	c.mu.Unlock()
	c.stop()
	c.wg.Wait()
	if sid == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.opts.URL, nil)
	if err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	c.headers(req, sid)
	resp, err := c.hc.Do(req)
	if err != nil {
		// A gateway that is gone has ended the session already.
		return nil
	}
	return resp.Body.Close()
}
