package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/propagation"

	"github.com/toolgate/toolgate/internal/clip"
)

// MCP streamable HTTP: sessions for protocol versions through 2025-11-25,
// none for 2026-07-28 (see stateless.go).
const (
	headerSessionID = "Mcp-Session-Id"
	headerProtocol  = "MCP-Protocol-Version"
	endpointPath    = "/mcp"

	// keepAliveInterval writes an SSE comment on an idle listening stream so
	// proxies and clients do not time it out.
	keepAliveInterval = 25 * time.Second
)

// streamWriteTimeout bounds each write to an event stream. A client that
// keeps its connection open but reads nothing fills the socket's buffers, and
// a write without a deadline then waits on it for ever: a call reporting
// progress to such a client outlived its own deadline, and kept its plugin
// busy, until the client went away. Past this the client loses the stream.
var streamWriteTimeout = 10 * time.Second

// Handler serves streamable HTTP at /mcp, and Options.Handlers, behind the
// access checks (Host, Origin, bearer token, request size). Call Close when
// done with it.
func (s *Server) Handler() http.Handler {
	_, h := s.front(nil)
	return h
}

// front builds the HTTP front; closing stop ends its listening streams, so a
// graceful shutdown does not wait for them.
func (s *Server) front(stop <-chan struct{}) (*httpTransport, http.Handler) {
	t := &httpTransport{srv: s, stop: stop}
	go t.expireIdle()
	mux := http.NewServeMux()
	mux.Handle(endpointPath, t)
	for pattern, h := range s.routes() {
		mux.Handle(pattern, h)
	}
	return t, s.probes(s.guard(mux))
}

type httpTransport struct {
	srv  *Server
	stop <-chan struct{}
	// owned are the sessions this front created, ended with it; held
	// counts them, so that initialize checks the caps without a scan.
	owned sync.Map
	held  sessionCount
	// deleted holds the handles of sealed sessions deleted here, until they
	// expire; rebuildMu makes one session of concurrent first requests.
	deleted      sync.Map
	deletedCount atomic.Int64
	rebuildMu    sync.Mutex
}

func (t *httpTransport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost && mcp.IsModernProtocol(r.Header.Get(headerProtocol)) {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, r.Method+" is not part of protocol "+mcp.ProtocolVersion20260728+
			": notifications come on a subscriptions/listen request, and there is no session to end", http.StatusMethodNotAllowed)
		return
	}
	switch r.Method {
	case http.MethodPost:
		if r.Header.Get("traceparent") != "" {
			// A traced client's (or proxy's) W3C trace context: the
			// call_tool span continues its trace.
			r = r.WithContext(propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header)))
		}
		t.post(w, r)
	case http.MethodGet:
		t.get(w, r)
	case http.MethodDelete:
		t.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

func (t *httpTransport) post(w http.ResponseWriter, r *http.Request) {
	s := t.srv
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		// Read as it is, a compressed body was refused as not UTF-8, and
		// one merely labelled so was taken as plain.
		http.Error(w, fmt.Sprintf("Content-Encoding %q is not supported: send the body uncompressed", clip.Name(ce)), http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.writeTooLarge(w)
			return
		}
		writeJSON(w, http.StatusBadRequest, errorResponse(nil, codeParseError, s.bodyReadProblem(err)))
		return
	}
	env, err := parseEnvelope(body)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, parseErrorResponse(err))
		return
	}

	if env.isRequest() && (env.modern() || mcp.IsModernProtocol(r.Header.Get(headerProtocol))) {
		t.stateless(w, r, body, env)
		return
	}
	if !env.isRequest() && r.Header.Get(headerSessionID) == "" && mcp.IsModernProtocol(r.Header.Get(headerProtocol)) {
		t.statelessNotice(w, r, env)
		return
	}
	if env.isRequest() && env.Method == string(mcp.MethodInitialize) {
		t.initialize(w, r, body, env)
		return
	}
	se, ok := t.session(w, r, env)
	if !ok {
		return
	}
	if !env.isRequest() {
		s.dispatch(r.Context(), se, body, env, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	ps := &postStream{w: w, rc: http.NewResponseController(w)}
	rs := &requestScope{ctx: r.Context(), stream: ps, progressToken: env.callParams().Meta.ProgressToken}
	resp := s.dispatch(r.Context(), se, body, env, rs)
	ps.finish(resp, rs.cancelled.Load(), http.StatusOK)
}

// bodyReadProblem words why a request body could not be read. A body still
// arriving when the read timeout cut it is named as such: the bare network
// error ("read tcp …: i/o timeout") says neither that the client was too
// slow nor which setting decides how slow is too slow.
func (s *Server) bodyReadProblem(err error) string {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Sprintf("read request body: not received in full within %s (listen.read_timeout)",
			orDefault(s.opts.ReadTimeout, DefaultReadTimeout))
	}
	return fmt.Sprintf("read request body: %v", err)
}

// stateless serves a 2026-07-28 request: no session, everything about the
// client in the request itself, the principal checked as for any request.
func (t *httpTransport) stateless(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) {
	s := t.srv
	if resp := s.checkHeaders(r.Header, env); resp != nil {
		writeJSON(w, statusFor(*resp), *resp)
		return
	}
	ps := &postStream{w: w, rc: http.NewResponseController(w)}
	rs := &requestScope{ctx: r.Context(), stream: ps, progressToken: env.callParams().Meta.ProgressToken, stop: t.stop}
	resp := s.dispatch(r.Context(), nil, body, env, rs)
	ps.finish(resp, rs.cancelled.Load(), statusFor(resp))
}

// statelessNotice takes a notification or response of a 2026-07-28 client.
// Such a client cancels a request by closing its stream, and is never sent a
// request, so only notifications/roots/list_changed means anything here.
func (t *httpTransport) statelessNotice(w http.ResponseWriter, r *http.Request, env *envelope) {
	if !env.isNotification() {
		writeJSON(w, http.StatusBadRequest, errorResponse(env.ID, codeInvalidRequest,
			"a response from a client on protocol "+mcp.ProtocolVersion20260728+" answers nothing: this gateway asks such clients with input-required results"))
		return
	}
	if env.Method == mcp.MethodNotificationRootsListChanged && t.srv.opts.RootsChanged != nil {
		t.srv.opts.RootsChanged(withCaller(r.Context(), Caller{Principal: credentialFrom(r.Context()).who}))
	}
	w.WriteHeader(http.StatusAccepted)
}

// maxClientState bounds what a session keeps of its client: the clientInfo
// and capabilities of its initialize. Real clients send well under a
// kilobyte; without a bound, each of max_sessions sessions could hold a
// request's worth (max_request_bytes) of them, gigabytes in all.
const maxClientState = 64 << 10

// clientStateProblem says why an initialize's clientInfo and capabilities are
// too large to keep, or "" when they are not.
func clientStateProblem(env *envelope) string {
	var p struct {
		ClientInfo   json.RawMessage `json:"clientInfo"`
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(env.Params, &p) != nil {
		return "" // mcp-go's to report
	}
	if n := len(p.ClientInfo) + len(p.Capabilities); n > maxClientState {
		return fmt.Sprintf("initialize: the client's clientInfo and capabilities take %d bytes, more than the %d a session keeps", n, maxClientState)
	}
	return ""
}

func (t *httpTransport) initialize(w http.ResponseWriter, r *http.Request, body []byte, env *envelope) {
	s := t.srv
	if problem := clientStateProblem(env); problem != "" {
		writeJSON(w, http.StatusBadRequest, errorResponse(env.ID, codeInvalidParams, problem))
		return
	}
	who := credentialFrom(r.Context()).who
	if err := t.reserve(who); err != nil {
		t.refuseSession(w, r, env.ID, who, err, false)
		return
	}
	var (
		se  *session
		err error
	)
	if s.sealer != nil {
		se, err = s.newSealedSession(r.Context(), env)
	} else {
		se, err = s.newSession(r.Context())
	}
	if err != nil {
		t.release(who)
		if errors.Is(err, errCapsTooLarge) {
			writeJSON(w, http.StatusBadRequest, errorResponse(env.ID, codeInvalidParams, "initialize: "+err.Error()))
			return
		}
		writeJSON(w, http.StatusServiceUnavailable, errorResponse(env.ID, codeInternalError, err.Error()))
		return
	}
	t.owned.Store(se.id, se)
	resp := s.dispatch(r.Context(), se, body, env, &requestScope{ctx: r.Context()})
	if isErrorResponse(resp) {
		t.drop(se)
	} else {
		w.Header().Set(headerSessionID, se.id)
	}
	writeJSON(w, http.StatusOK, resp)
}

// session finds the session a request names, answering the request itself
// when it cannot.
func (t *httpTransport) session(w http.ResponseWriter, r *http.Request, env *envelope) (*session, bool) {
	var id json.RawMessage
	if env != nil {
		id = env.ID
	}
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		writeJSON(w, http.StatusBadRequest, errorResponse(id, codeInvalidRequest,
			"missing "+headerSessionID+" header: send initialize first"))
		return nil, false
	}
	se, ok := t.srv.lookupSession(sid)
	if ok && se.expired(time.Now()) {
		t.drop(se)
		ok = false
	}
	why := errNoSession
	if !ok && t.srv.sealer != nil {
		if se, why = t.rebuild(r.Context(), sid); errors.Is(why, errSessionsFull) || errors.Is(why, errPrincipalSessionsFull) {
			t.refuseSession(w, r, id, credentialFrom(r.Context()).who, why, true)
			return nil, false
		}
		ok = why == nil
	}
	// Another principal's session is answered exactly as a missing one, so
	// an id learnt from a log or a shared proxy gives nothing away.
	if ok && se.owner != credentialFrom(r.Context()).who {
		ok, why = false, errNoSession
	}
	if !ok {
		writeJSON(w, http.StatusNotFound, errorResponse(id, codeInvalidRequest, notFound(why)))
		return nil, false
	}
	if v := r.Header.Get(headerProtocol); v != "" && !slices.Contains(mcp.LegacyProtocolVersions(), v) {
		writeJSON(w, http.StatusBadRequest, errorResponse(id, codeInvalidRequest,
			fmt.Sprintf("unsupported %s %q (supported: %v)", headerProtocol, clip.Name(v), mcp.LegacyProtocolVersions())))
		return nil, false
	}
	se.touch()
	return se, true
}

// get is the listening stream: session-wide notifications (log broadcasts,
// resource updates). A newer stream of the same session replaces an older one.
// The stream ends after half the session idle timeout, and when the access
// token that opened it or its sealed session expires; the client
// reconnects, which both keeps the session alive and checks its credential
// again.
func (t *httpTransport) get(w http.ResponseWriter, r *http.Request) {
	se, ok := t.session(w, r, nil)
	if !ok {
		return
	}
	replaced, release := se.listen()
	defer release()
	life := t.srv.sessionIdleTimeout() / 2
	if exp := credentialFrom(r.Context()).expires; !exp.IsZero() {
		life = min(life, time.Until(exp))
	}
	if !se.expires.IsZero() {
		life = min(life, time.Until(se.expires))
	}
	end := time.NewTimer(life)
	defer end.Stop()

	rc := http.NewResponseController(w)
	defer func() { _ = rc.SetWriteDeadline(time.Time{}) }()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(keepAliveInterval)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-se.notes.ready():
			if n, ok := se.notes.next(); ok {
				_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
				err = writeEvent(w, n)
			}
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			_, err = io.WriteString(w, ": keep-alive\n\n")
		case <-r.Context().Done():
			return
		case <-se.done:
			return
		case <-replaced:
			return
		case <-t.stop:
			return
		case <-end.C:
			return
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			t.srv.log.Debug("listening stream ended", "session", se.conn, "error", err)
			return
		}
	}
}

func (t *httpTransport) delete(w http.ResponseWriter, r *http.Request) {
	se, ok := t.session(w, r, nil)
	if !ok {
		return
	}
	t.forget(se)
	w.WriteHeader(http.StatusNoContent)
}

func (t *httpTransport) drop(se *session) {
	if _, loaded := t.owned.LoadAndDelete(se.id); loaded {
		t.release(se.owner)
	}
	t.srv.dropSession(se)
}

// dropAll ends every session this front created.
func (t *httpTransport) dropAll() {
	t.owned.Range(func(_, v any) bool {
		t.drop(v.(*session))
		return true
	})
}

func writeJSON(w http.ResponseWriter, status int, msg any) {
	b, err := encodeMessage(msg)
	if err != nil {
		http.Error(w, fmt.Sprintf("encode response: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
