package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/internal/clip"
)

// Protocol 2026-07-28 has no initialize and no session: every request names
// its protocol version, client and client capabilities in _meta, and a client
// learns what the server offers with server/discover. mcp-go's MCPServer
// serves both eras from the _meta of each message; what this file adds is
// what the transports must do around it: give each such request a session of
// its own (so a legacy session and a 2026-07-28 request reach handlers the
// same way), refuse versions not served, and check the HTTP headers that
// intermediaries route on.

// DefaultProtocolVersions are the MCP versions a gateway serves when
// Options.ProtocolVersions is empty, newest first.
var DefaultProtocolVersions = []string{
	mcp.ProtocolVersion20260728,
	mcp.ProtocolVersion20251125,
	mcp.ProtocolVersion20250618,
}

// versions is what server/discover advertises and what the transports admit.
func (s *Server) versions() []string {
	if len(s.opts.ProtocolVersions) > 0 {
		return s.opts.ProtocolVersions
	}
	return DefaultProtocolVersions
}

func checkVersions(versions []string) error {
	for i, v := range versions {
		if !slices.Contains(DefaultProtocolVersions, v) {
			return &OptionError{Field: fmt.Sprintf("ProtocolVersions[%d]", i),
				Problem: fmt.Sprintf("%q is not served (served: %v)", v, DefaultProtocolVersions)}
		}
	}
	if len(versions) > 0 && !slices.ContainsFunc(versions, func(v string) bool { return !mcp.IsModernProtocol(v) }) {
		return &OptionError{Field: "ProtocolVersions", Problem: "names no version with initialize: clients that cannot discover could not connect"}
	}
	return nil
}

// legacyVersion is the version initialize answers with, among those served.
func (s *Server) legacyVersion(negotiated string) string {
	vs := s.versions()
	if slices.Contains(vs, negotiated) {
		return negotiated
	}
	for _, v := range vs {
		if !mcp.IsModernProtocol(v) {
			return v
		}
	}
	return negotiated
}

// unsupportedVersion answers a request whose _meta names a version this
// gateway does not serve, with the versions it does, so the client can
// negotiate down; nil when the version is served.
func (s *Server) unsupportedVersion(env *envelope) *rpcResponse {
	v := env.params.Meta.ProtocolVersion
	if slices.Contains(s.versions(), v) {
		return nil
	}
	e := mcp.UnsupportedProtocolVersionError{Version: v, Supported: s.versions()}.JSONRPCError()
	return &rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: env.ID, Error: &rpcError{Code: e.Error.Code, Message: e.Error.Message, Data: e.Error.Data}}
}

// requestSession makes the session of one 2026-07-28 request. conn is the
// stdio session the request came on, nil over HTTP. The session lives until
// end is called; it is registered nowhere unless it serves a listen stream.
func (s *Server) requestSession(ctx context.Context, conn *session, env *envelope) (*session, error) {
	owner := credentialFrom(ctx).who
	if conn != nil {
		owner = conn.owner
	}
	// Only a listen stream is sent notifications; any other request's
	// session needs no queue, and there is one per request.
	notes := 0
	if env.Method == string(mcp.MethodSubscriptionsListen) {
		notes = notesBuffer
	}
	se, err := s.makeSession(owner, notes)
	if err != nil {
		return nil, err
	}
	se.perRequest = true
	if conn != nil {
		se.conn = conn.conn
	}
	// A 2026-07-28 request that names no log level gets no log lines.
	if lvl := mcp.LoggingLevel(env.params.Meta.LogLevel); validLevel(lvl) {
		se.SetLogLevel(lvl)
	}
	return se, nil
}

// end finishes a session made for one request, and releases the resource
// subscriptions it held if it served a listen.
func (se *session) end() {
	se.srv.sessions.CompareAndDelete(se.id, se)
	se.doneOnce.Do(func() { close(se.done) })
	se.releaseResources()
}

// checkHeaders applies the HTTP rules of 2026-07-28 to a request whose body
// or Mcp-Protocol-Version header names that version: the header and the body
// agree on the version, Mcp-Method and Mcp-Name repeat the body's method and
// name (so a router that read only the headers was not misled), and
// x-mcp-header parameters match the arguments. It returns the error to
// answer with, or nil.
func (s *Server) checkHeaders(h http.Header, env *envelope) *rpcResponse {
	refuse := func(code int, msg string) *rpcResponse {
		r := errorResponse(env.ID, code, msg)
		return &r
	}
	header, body := h.Get(headerProtocol), env.params.Meta.ProtocolVersion
	switch {
	case h.Get("Last-Event-ID") != "":
		return refuse(mcp.HEADER_MISMATCH, "Last-Event-ID is not supported in protocol "+mcp.ProtocolVersion20260728+
			": streams are not resumable; send the request again with a new id")
	case header == "":
		return refuse(mcp.HEADER_MISMATCH, fmt.Sprintf("missing %s header: a request whose _meta declares protocol %s must name it in the header too", headerProtocol, body))
	case body == "":
		return refuse(mcp.HEADER_MISMATCH, fmt.Sprintf("%s header %s does not match the request: its params._meta declares no %s", headerProtocol, clip.Name(header), mcp.MetaKeyProtocolVersion))
	case header != body:
		return refuse(mcp.HEADER_MISMATCH, fmt.Sprintf("%s header %s does not match the request's _meta %s %s", headerProtocol, clip.Name(header), mcp.MetaKeyProtocolVersion, clip.Name(body)))
	}
	if err := mcp.ValidateStandardHeaders(h.Get, body, mcp.MCPMethod(env.Method), env.Params); err != nil {
		return refuse(mcp.HEADER_MISMATCH, err.Error())
	}
	if env.Method == string(mcp.MethodToolsCall) {
		if def, ok := s.defs[env.params.Name]; ok {
			params := env.Params
			if !isJSONObject(env.params.Arguments) {
				// mcp-go skips the check when arguments are missing, null or
				// no object; a header would then claim a value the tool
				// never gets. Checked as no arguments, any header is refused.
				params = json.RawMessage(`{"arguments":{}}`)
			}
			if err := mcp.ValidateParamHeadersLookup(func(name string) (string, bool) {
				v := h.Values(name)
				if len(v) == 0 {
					return "", false
				}
				return v[0], true
			}, &def, params); err != nil {
				return refuse(mcp.HEADER_MISMATCH, err.Error())
			}
		}
	}
	return nil
}

// statusFor is the HTTP status 2026-07-28 gives a JSON-RPC error answered
// as plain JSON.
func statusFor(resp any) int {
	r, ok := resp.(rpcResponse)
	if !ok || r.Error == nil {
		return http.StatusOK
	}
	switch r.Error.Code {
	case mcp.METHOD_NOT_FOUND:
		return http.StatusNotFound
	case mcp.HEADER_MISMATCH, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY, mcp.UNSUPPORTED_PROTOCOL_VERSION,
		mcp.INVALID_REQUEST, mcp.INVALID_PARAMS, mcp.PARSE_ERROR:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// listen serves a subscriptions/listen: while mcp-go holds the request
// open, the session is reachable by the gateway's broadcasts and what
// reaches it goes out on the request's own stream, each message tagged with
// the listen's id. Nothing goes out before mcp-go's acknowledgement: a
// broadcast that reaches the session first waits for it. The returned func
// stops forwarding once everything queued is written, so the listen's
// result comes last.
func (s *Server) listen(se *session, rs *requestScope, id json.RawMessage) (stop func()) {
	s.sessions.Store(se.id, se)
	quit, done := make(chan struct{}), make(chan struct{})
	acked := false
	var early []mcp.JSONRPCNotification
	var send func(n mcp.JSONRPCNotification)
	send = func(n mcp.JSONRPCNotification) {
		if !acked && n.Method != mcp.MethodNotificationSubscriptionsAcknowledged {
			// As many wait as the session's queue holds, while plugins
			// take the listen's resource subscriptions.
			if len(early) < notesBuffer {
				early = append(early, n)
			} else {
				s.log.Debug("notification dropped: the listen is not acknowledged yet", "method", n.Method)
			}
			return
		}
		meta := make(map[string]any, len(n.Params.Meta)+1)
		for k, v := range n.Params.Meta {
			meta[k] = v
		}
		meta[mcp.MetaKeySubscriptionID] = id
		n.Params.Meta = meta
		if err := rs.stream.send(n); err != nil {
			s.log.Debug("listen stream notification not delivered", "method", n.Method, "error", err)
		}
		if !acked {
			acked = true
			for _, e := range early {
				send(e)
			}
			early = nil
		}
	}
	go func() {
		defer close(done)
		for {
			select {
			case <-se.notes.ready():
				if n, ok := se.notes.next(); ok {
					send(n)
				}
			case <-quit:
				for n, ok := se.notes.next(); ok; n, ok = se.notes.next() {
					send(n)
				}
				return
			}
		}
	}()
	return func() {
		s.sessions.CompareAndDelete(se.id, se)
		close(quit)
		<-done
	}
}

// listenContext is the context a listen runs under: it ends when the client
// goes, the HTTP front stops, the server closes, or the access token that
// opened the listen expires, as a legacy listening stream does.
func (s *Server) listenContext(ctx context.Context, rs *requestScope) (context.Context, context.CancelFunc) {
	ctx, cancel := stopWith(ctx, rs.stop, s.closed)
	if exp := credentialFrom(ctx).expires; !exp.IsZero() {
		var cancelAt context.CancelFunc
		ctx, cancelAt = context.WithDeadline(ctx, exp)
		return ctx, func() { cancelAt(); cancel() }
	}
	return ctx, cancel
}

// stopWith ends ctx when stop closes, as well as when ctx itself ends.
func stopWith(ctx context.Context, stops ...<-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	for _, stop := range stops {
		if stop == nil {
			continue
		}
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}
