package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// The HTTP front caps the sessions it holds twice: in all (MaxSessions),
// so that memory stays bounded, and per principal
// (MaxSessionsPerPrincipal), so that one token or OAuth subject cannot take
// every place and lock the others out.

// errSessionsFull refuses a session on a front at MaxSessions.
var errSessionsFull = errors.New("session limit reached")

// errPrincipalSessionsFull refuses a session to a principal that holds
// MaxSessionsPerPrincipal already.
var errPrincipalSessionsFull = errors.New("per-principal session limit reached")

// principalShare is the part of MaxSessions one principal may hold by
// default when several principals can connect, and the part of the tasks
// a process keeps that one principal may hold.
const principalShare = 10

// maxSessionsPerPrincipal is MaxSessionsPerPrincipal, or by default
// MaxSessions when only one principal can connect (no authentication, or a
// single static token: a lower cap would only lower the total) and a tenth
// of it otherwise.
func (s *Server) maxSessionsPerPrincipal() int {
	if n := s.opts.MaxSessionsPerPrincipal; n > 0 {
		return n
	}
	if s.onePrincipal() {
		return s.maxSessions()
	}
	return max(1, s.maxSessions()/principalShare)
}

// onePrincipal reports whether every HTTP client is the same principal:
// there is no OAuth and at most one static token.
func (s *Server) onePrincipal() bool { return s.opts.OAuth == nil && len(s.opts.Tokens) <= 1 }

// sessionCount is how many sessions a front holds, in all and by principal.
type sessionCount struct {
	mu    sync.Mutex
	total int
	by    map[Principal]int
}

// reserve takes a place for a new session of who, or says which cap is
// reached: errSessionsFull or errPrincipalSessionsFull.
func (t *httpTransport) reserve(who Principal) error {
	c := &t.held
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.total >= t.srv.maxSessions():
		return errSessionsFull
	case c.by[who] >= t.srv.maxSessionsPerPrincipal():
		return errPrincipalSessionsFull
	}
	if c.by == nil {
		c.by = map[Principal]int{}
	}
	c.total++
	c.by[who]++
	return nil
}

// release gives back the place of a session of who.
func (t *httpTransport) release(who Principal) {
	c := &t.held
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total--
	if c.by[who]--; c.by[who] <= 0 {
		delete(c.by, who)
	}
}

// refuseSession answers a request whose session reserve refused: 503 while
// the front is full, 429 to a principal at its own cap; the error names the
// limit and the setting. rebuild says the session exists already and this
// replica was to rebuild it from its sealed id.
func (t *httpTransport) refuseSession(w http.ResponseWriter, r *http.Request, id json.RawMessage, who Principal, why error, rebuild bool) {
	s := t.srv
	what := "initialize refused"
	if rebuild {
		what = "session refused"
	}
	w.Header().Set("Retry-After", "60")
	if errors.Is(why, errPrincipalSessionsFull) {
		limit := s.maxSessionsPerPrincipal()
		s.log.Warn(what+": per-principal session limit reached", "limit", limit,
			"issuer", who.Issuer, "subject", who.Subject, "client", who.Client, "remote", r.RemoteAddr)
		writeJSON(w, http.StatusTooManyRequests, errorResponse(id, codeInternalError, fmt.Sprintf(
			"too many sessions of yours: this gateway already holds %d sessions of this principal, its limit per principal (listen.max_sessions_per_principal); "+
				"end unused sessions with DELETE, or have the operator raise listen.max_sessions_per_principal", limit)))
		return
	}
	s.log.Warn(what+": session limit reached", "limit", s.maxSessions(), "remote", r.RemoteAddr)
	hint := "end unused sessions with DELETE or retry later"
	if rebuild {
		hint = "retry later"
	}
	writeJSON(w, http.StatusServiceUnavailable, errorResponse(id, codeInternalError, fmt.Sprintf(
		"too many sessions: this gateway already holds its limit of %d (listen.max_sessions); %s", s.maxSessions(), hint)))
}
