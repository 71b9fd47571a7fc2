package gateway

import (
	"context"
	"errors"
	"time"
)

// The HTTP front's side of sealed sessions: a replica serves a sealed id it
// never saw by rebuilding the session from it, and remembers the ids it
// deleted until they expire.

// errNoSession is why a request's session cannot be served when its
// client may be told nothing more: it is unknown, or another principal's.
var errNoSession = errors.New("no such session")

// errSessionDeleted refuses its owner a sealed session deleted here.
var errSessionDeleted = errors.New("session deleted")

// rebuild serves the first request this replica sees of a session sealed
// by any replica holding the same key: the session is made from its id,
// owned by the principal sealed in it, and kept like one opened here.
func (t *httpTransport) rebuild(ctx context.Context, id string) (*session, error) {
	s := t.srv
	st, err := s.sealer.unseal(id)
	if err != nil {
		s.log.Debug("session id refused", "error", err)
		return nil, err
	}
	// Whether it expired or was deleted is its owner's business only.
	if st.principal() != credentialFrom(ctx).who {
		return nil, errNoSession
	}
	if err := st.expiry(time.Now(), s.sessionMaxAge()); err != nil {
		return nil, err
	}
	if _, deleted := t.deleted.Load(st.Handle); deleted {
		return nil, errSessionDeleted
	}
	t.rebuildMu.Lock()
	defer t.rebuildMu.Unlock()
	if se, ok := s.lookupSession(id); ok {
		return se, nil
	}
	if err := t.reserve(st.principal()); err != nil {
		return nil, err
	}
	se, err := s.sessionFromState(id, st)
	if err == nil {
		err = s.register(ctx, se)
	}
	if err != nil {
		t.release(st.principal())
		return nil, err
	}
	se.Initialize()
	t.owned.Store(se.id, se)
	s.log.Debug("session rebuilt from its id", "session", se.conn)
	return se, nil
}

// notFound is what a client is told of a session that cannot be served:
// why, when the reason gives nothing away. An id no key opens says nothing
// of any session; that a session expired or was deleted is said only to
// its owner; anything else is an unknown session.
func notFound(err error) string {
	switch {
	case errors.Is(err, errNotSealed):
		return "session not found: its id is not sealed with any session key this gateway holds " +
			"(altered or cut short, or sealed with a key since rotated out or that not every replica holds); initialize a new one"
	case errors.Is(err, errSessionExpired):
		return err.Error() + " (listen.session_max_age); initialize a new one"
	case errors.Is(err, errSessionDeleted):
		return "session not found: it was deleted; initialize a new one"
	}
	return "session not found: it ended, expired or never existed; initialize a new one"
}

// forget ends a session its client deleted. A sealed one is remembered
// until it expires, so this replica does not rebuild it; other replicas
// would, until then. At most maxDeleted are remembered: past that, a
// deleted session is bounded by its expiry alone, as on other replicas.
func (t *httpTransport) forget(se *session) {
	if !se.expires.IsZero() && t.deletedCount.Load() < int64(t.maxDeleted()) {
		if _, loaded := t.deleted.LoadOrStore(se.conn, se.expires); !loaded {
			t.deletedCount.Add(1)
		}
	}
	t.drop(se)
}

// maxDeleted bounds the deleted sessions a replica remembers.
func (t *httpTransport) maxDeleted() int { return 10 * t.srv.maxSessions() }

// sweepDeleted forgets deleted sessions that have expired anyway.
func (t *httpTransport) sweepDeleted(now time.Time) {
	t.deleted.Range(func(k, v any) bool {
		if !now.Before(v.(time.Time)) && t.deleted.CompareAndDelete(k, v) {
			t.deletedCount.Add(-1)
		}
		return true
	})
}
