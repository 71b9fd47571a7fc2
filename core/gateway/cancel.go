package gateway

import (
	"context"
	"encoding/json"
	"errors"
)

// The gateway matches notifications/cancelled to the call it names itself:
// mcp-go keys its calls by the id decoded into float64 and printed, so 2^53
// and 2^53+1, or "7" and 7, are one key there, and cancelling one call
// cancelled another of the same session.

// inflightKey names one running request of one session.
type inflightKey struct {
	session string
	id      string // idIdentity of the request's id
}

// inflightCall is what a cancellation ends; a pointer, so a finished request
// removes its own entry and never a later one that reused its id.
type inflightCall struct{ cancel context.CancelCauseFunc }

// errClientCancelled is the cause of a request's context when its client
// sent notifications/cancelled for it: such a request gets no answer.
var errClientCancelled = errors.New("the client cancelled the request")

// errIDInFlight refuses a request whose id a running request of the same
// session already has. Served, it would take over the first one's entry, and
// once answered leave the first one beyond the reach of notifications/cancelled.
var errIDInFlight = errors.New("a request of this session with the same id is still running; ids must be unique among requests in flight")

// track registers a request for cancellation; the returned func ends the
// registration and must run when the request is answered. It fails with
// errIDInFlight, registering nothing, when the id is taken.
func (s *Server) track(ctx context.Context, se *session, id json.RawMessage) (context.Context, func(), error) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := inflightKey{session: se.conn, id: idIdentity(id)}
	call := &inflightCall{cancel: cancel}
	if _, taken := s.inflight.LoadOrStore(key, call); taken {
		cancel(nil)
		return nil, nil, errIDInFlight
	}
	return ctx, func() {
		s.inflight.CompareAndDelete(key, call)
		cancel(nil)
	}, nil
}

// cancelRequest serves notifications/cancelled: a requestId no request of
// the session has is ignored, as MCP asks.
func (s *Server) cancelRequest(se *session, params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || idProblem(p.RequestID) != "" {
		return
	}
	if v, ok := s.inflight.LoadAndDelete(inflightKey{session: se.conn, id: idIdentity(p.RequestID)}); ok {
		v.(*inflightCall).cancel(errClientCancelled)
	}
}

// idIdentity is what makes two valid ids the same: a string's value however
// it was escaped, an integer's digits.
func idIdentity(id json.RawMessage) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	return "n" + string(id)
}
