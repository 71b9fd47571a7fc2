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

// maxSessionsPerPrincipal is MaxSessionsPerPrincipal, or by default one
// principal's share of MaxSessions (principalshares.go).
func (s *Server) maxSessionsPerPrincipal() int {
	if n := s.opts.MaxSessionsPerPrincipal; n > 0 {
		return n
	}
	return s.shareOf(s.maxSessions())
}

// sessionCount is how many sessions a front holds, in all and by principal.
type sessionCount struct {
	mu    sync.Mutex
	total int
	by    principalShares
}

// reserve takes a place for a new session of who, or says which cap is
// reached: errSessionsFull or errPrincipalSessionsFull.
func (t *httpTransport) reserve(who Principal) error {
	c := &t.held
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by.held == nil {
		c.by = newPrincipalShares(t.srv.maxSessionsPerPrincipal())
	}
	switch {
	case c.total >= t.srv.maxSessions():
		return errSessionsFull
	case c.by.full(who, 0):
		return errPrincipalSessionsFull
	}
	c.total++
	c.by.take(who)
	return nil
}

// release gives back the place of a session of who.
func (t *httpTransport) release(who Principal) {
	c := &t.held
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total--
	c.by.give(who)
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
