package gateway

import "time"

// Session limits of the HTTP front, when Options leave them zero.
const (
	// DefaultMaxSessions bounds the sessions one gateway holds: each costs
	// memory and a notification buffer, and initialize needs no token when
	// the gateway has none.
	DefaultMaxSessions = 10000
	// DefaultSessionIdleTimeout ends a session that sent no request for this
	// long; clients that vanish without DELETE would otherwise accumulate.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// maxSweepEvery bounds the pause between two sweeps for idle sessions.
	maxSweepEvery = time.Minute
)

func (s *Server) maxSessions() int {
	if s.opts.MaxSessions > 0 {
		return s.opts.MaxSessions
	}
	return DefaultMaxSessions
}

func (s *Server) sessionIdleTimeout() time.Duration {
	if s.opts.SessionIdleTimeout > 0 {
		return s.opts.SessionIdleTimeout
	}
	return DefaultSessionIdleTimeout
}

// expireIdle ends, on a timer, the sessions that sent no request for the
// idle timeout. An open listening stream does not keep a session alive: it
// ends itself after half the timeout, and a client still there reconnects,
// which counts as a request. It runs until the front or the server ends.
func (t *httpTransport) expireIdle() {
	limit := t.srv.sessionIdleTimeout()
	tick := time.NewTicker(min(limit/4, maxSweepEvery))
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-t.stop:
			return
		case <-t.srv.closed:
			return
		}
		now := time.Now()
		cutoff := now.Add(-limit)
		t.owned.Range(func(_, v any) bool {
			switch se := v.(*session); {
			case se.idleSince().Before(cutoff):
				t.srv.log.Debug("dropping idle session", "session", se.conn)
				t.drop(se)
			case se.expired(now):
				t.srv.log.Debug("dropping expired session", "session", se.conn)
				t.drop(se)
			}
			return true
		})
		t.sweepDeleted(now)
	}
}
