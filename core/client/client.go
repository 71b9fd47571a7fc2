package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"
)

// ProtocolVersion is the MCP version the client asks for.
const ProtocolVersion = "2025-06-18"

// Client is a typed MCP client of a toolgate gateway.
type Client struct {
	conn   *Conn
	elicit func(context.Context, json.RawMessage) json.RawMessage
	ids    atomic.Int64
	server struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
}

// Connect opens a session with the gateway at opts.URL. name identifies the
// client to the gateway (e.g. "toolgate-cli").
func Connect(ctx context.Context, opts Options, name, version string) (*Client, error) {
	conn, err := NewConn(opts)
	if err != nil {
		return nil, err
	}
	c := &Client{conn: conn, elicit: opts.Elicit}
	caps := map[string]any{}
	if opts.Elicit != nil {
		caps["elicitation"] = map[string]any{}
	}
	res, err := c.Request(ctx, "initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    caps,
		"clientInfo":      map[string]string{"name": name, "version": version},
	}, nil)
	if err == nil {
		var init struct {
			ServerInfo json.RawMessage `json:"serverInfo"`
		}
		if err = json.Unmarshal(res, &init); err == nil {
			_ = json.Unmarshal(init.ServerInfo, &c.server)
		}
	}
	if err == nil {
		_, err = conn.Send(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	}
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("connect to %s: %w", opts.URL, err)
	}
	return c, nil
}

// Server is the gateway's name and version from initialize.
func (c *Client) Server() (name, version string) { return c.server.Name, c.server.Version }

// Close ends the session.
func (c *Client) Close() error { return c.conn.Close() }

// RPCError is a JSON-RPC error response.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("gateway error %d: %s", e.Code, e.Message) }

// Request sends a JSON-RPC request and returns its result. onEvent sees what
// arrives on the request's stream first. When ctx ends, the gateway is told
// with notifications/cancelled and Request returns ctx's error.
func (c *Client) Request(ctx context.Context, method string, params any, onEvent func([]byte)) (json.RawMessage, error) {
	id := c.ids.Add(1)
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", method, err)
	}
	type answer struct {
		resp []byte
		err  error
	}
	// The HTTP request outlives ctx briefly, so the gateway hears of the
	// cancellation before the stream closes.
	sendCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	done := make(chan answer, 1)
	events := onEvent
	if c.elicit != nil {
		events = func(msg []byte) {
			if !c.answer(ctx, msg) && onEvent != nil {
				onEvent(msg)
			}
		}
	}
	go func() {
		r, err := c.conn.Send(sendCtx, msg, events)
		done <- answer{r, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
			"params": map[string]any{"requestId": id, "reason": context.Cause(ctx).Error()}})
		nctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, _ = c.conn.Send(nctx, note, nil)
		cancel()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			abort()
			<-done
		}
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
	if a.err != nil {
		return nil, fmt.Errorf("%s: %w", method, a.err)
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(a.resp, &resp); err != nil {
		return nil, fmt.Errorf("%s: read response: %w", method, err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: %w", method, resp.Error)
	}
	return resp.Result, nil
}

// CallOption adjusts one tool call.
type CallOption func(*callConfig)

type callConfig struct {
	progress func(Progress)
	timeout  time.Duration
}

// WithProgress asks for progress notifications and passes each to fn.
func WithProgress(fn func(Progress)) CallOption { return func(c *callConfig) { c.progress = fn } }

// WithTimeout replaces the plugin's default call timeout for this call
// (call_tool's timeout_seconds).
func WithTimeout(d time.Duration) CallOption { return func(c *callConfig) { c.timeout = d } }

// Meta calls one of the gateway's own tools (the meta-tools of tools/list)
// with tools/call.
func (c *Client) Meta(ctx context.Context, tool string, args any, opts ...CallOption) (*ToolResult, error) {
	var cfg callConfig
	for _, o := range opts {
		o(&cfg)
	}
	return c.meta(ctx, tool, args, cfg)
}

func (c *Client) meta(ctx context.Context, tool string, args any, cfg callConfig) (*ToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	params := map[string]any{"name": tool, "arguments": args}
	var onEvent func([]byte)
	if cfg.progress != nil {
		token := fmt.Sprintf("toolgate-progress-%d", c.ids.Add(1))
		params["_meta"] = map[string]any{"progressToken": token}
		onEvent = func(msg []byte) {
			var n struct {
				Method string `json:"method"`
				Params struct {
					Token json.RawMessage `json:"progressToken"`
					Progress
				} `json:"params"`
			}
			if json.Unmarshal(msg, &n) == nil && n.Method == "notifications/progress" && string(n.Params.Token) == `"`+token+`"` {
				cfg.progress(n.Params.Progress)
			}
		}
	}
	raw, err := c.Request(ctx, "tools/call", params, onEvent)
	if err != nil {
		return nil, err
	}
	res := &ToolResult{Raw: raw}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, fmt.Errorf("%s: read result: %w", tool, err)
	}
	return res, nil
}

// CallTool runs a plugin tool (x_*) or core tool (core_*) through call_tool
// and returns the backend's result as it gave it; a tool that failed answers
// with IsError set, not with an error.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*ToolResult, error) {
	var cfg callConfig
	for _, o := range opts {
		o(&cfg)
	}
	if args == nil {
		args = map[string]any{}
	}
	in := map[string]any{"name": name, "arguments": args}
	if cfg.timeout > 0 {
		in["timeout_seconds"] = cfg.timeout.Seconds()
	}
	return c.meta(ctx, "call_tool", in, cfg)
}

// ToolError is a meta-tool's isError answer: an unknown name, a bad
// argument, a plugin that could not be reached.
type ToolError struct {
	Tool    string
	Message string
}

func (e *ToolError) Error() string { return e.Tool + ": " + e.Message }

// metaJSON calls a meta-tool (or, through call_tool, a core tool) and decodes
// its JSON answer into out.
func (c *Client) metaJSON(ctx context.Context, tool string, args any, out any) error {
	var res *ToolResult
	var err error
	if len(tool) > 5 && tool[:5] == "core_" {
		res, err = c.CallTool(ctx, tool, args)
	} else {
		res, err = c.Meta(ctx, tool, args)
	}
	if err != nil {
		return err
	}
	if res.IsError {
		return &ToolError{Tool: tool, Message: res.Text()}
	}
	body := res.JSON()
	if body == nil {
		return fmt.Errorf("%s: answer is not JSON: %q", tool, res.Text())
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("%s: read answer: %w", tool, err)
	}
	return nil
}

// answer answers msg when it is an elicitation/create request, and reports
// whether it was one. The request's stream waits for the answer, so it is
// given before the next message is read.
func (c *Client) answer(ctx context.Context, msg []byte) bool {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &req) != nil || req.Method != "elicitation/create" || len(req.ID) == 0 {
		return false
	}
	resp, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": c.elicit(ctx, req.Params)})
	if err == nil {
		_, err = c.conn.Send(ctx, resp, nil)
	}
	if err != nil {
		c.conn.log.Warn("could not answer the gateway's elicitation", "error", err)
	}
	return true
}
