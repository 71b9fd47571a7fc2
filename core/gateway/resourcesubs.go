package gateway

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A plugin resource is subscribed at its plugin once, however many clients
// watch it: legacy sessions through resources/subscribe, 2026-07-28 clients
// through the resourceSubscriptions of a subscriptions/listen stream. Both
// count in the same table, keyed by the session that holds the
// subscription (a listen stream has a session of its own), and the last one
// to leave unsubscribes at the plugin. Updates come back through
// ResourceUpdated, which reaches only the sessions subscribed to the URI.

// Bounds of what one session subscribes to. A subscription is kept, URI and
// all, for the life of its session, here and at the plugin serving it:
// without them one session could pile up gigabytes, a request's worth at a
// time.
const (
	maxSessionSubscriptions = 1000
	maxSubscriptionURI      = 8 << 10
)

// errSubscriptionLimit refuses a subscription past those bounds.
var errSubscriptionLimit = errors.New("subscription refused")

// watch is one plugin resource that sessions subscribe to. n counts them
// (guarded by native.subsMu). mu orders the calls to the source, so a
// subscribe and an unsubscribe of the same URI never overtake each other;
// told and err (guarded by mu) say whether the source was asked to watch the
// URI and how that went.
type watch struct {
	n int

	mu   sync.Mutex
	told bool
	err  error
}

// subscribable reports whether a session may subscribe to uri: one of the
// gateway's own resources, or one a plugin serves.
func (s *Server) subscribable(uri string) bool {
	if s.resources[uri] {
		return true
	}
	return s.opts.PluginResources != nil && s.opts.PluginResources.Routes(uri)
}

// subscribed counts a session's subscription to uri and makes sure the
// source watches it; the error is the source's, when it could not.
func (s *Server) subscribed(ctx context.Context, sessionID, uri string) error {
	if s.resources[uri] {
		return nil
	}
	s.native.subsMu.Lock()
	mine := s.native.bySession[sessionID]
	if mine == nil {
		mine = map[string]bool{}
		s.native.bySession[sessionID] = mine
	}
	w := s.native.subs[uri]
	if w == nil {
		w = &watch{}
		s.native.subs[uri] = w
	}
	if !mine[uri] {
		mine[uri] = true
		w.n++
	}
	s.native.subsMu.Unlock()
	return s.settle(ctx, uri, w)
}

// unsubscribed forgets one session's subscription to uri.
func (s *Server) unsubscribed(ctx context.Context, sessionID, uri string) {
	s.native.subsMu.Lock()
	w := s.release(sessionID, uri)
	s.native.subsMu.Unlock()
	if w != nil {
		_ = s.settle(ctx, uri, w)
	}
}

// sessionEnded releases every subscription of a session that is gone.
func (s *Server) sessionEnded(ctx context.Context, sessionID string) {
	s.native.subsMu.Lock()
	mine, ok := s.native.bySession[sessionID]
	if !ok {
		s.native.subsMu.Unlock()
		return
	}
	uris := make([]string, 0, len(mine))
	for uri := range mine {
		uris = append(uris, uri)
	}
	watches := make([]*watch, 0, len(uris))
	for _, uri := range uris {
		watches = append(watches, s.release(sessionID, uri))
	}
	delete(s.native.bySession, sessionID)
	s.native.subsMu.Unlock()
	for i, uri := range uris {
		_ = s.settle(ctx, uri, watches[i])
	}
}

// release forgets one subscription and returns the watch it counted in, nil
// when the session held none to uri; subsMu is held.
func (s *Server) release(sessionID, uri string) *watch {
	mine := s.native.bySession[sessionID]
	if !mine[uri] {
		return nil
	}
	delete(mine, uri)
	if len(mine) == 0 {
		delete(s.native.bySession, sessionID)
	}
	w := s.native.subs[uri]
	w.n--
	return w
}

// settle brings the source in line with the count: asked to watch uri while
// any session subscribes (again, if the last attempt failed), told to stop
// once none does. The last settle after a change sees the final count, so
// concurrent subscribers and leavers cannot leave the plugin subscribed to
// a resource nobody watches.
func (s *Server) settle(ctx context.Context, uri string, w *watch) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	s.native.subsMu.Lock()
	wanted := w.n > 0
	s.native.subsMu.Unlock()
	switch {
	case wanted && (!w.told || w.err != nil):
		// The source records the watch even when the plugin fails, and asks
		// again when the plugin (re)starts; told stays true so the last
		// leaver releases it.
		w.told = true
		w.err = s.opts.PluginResources.SubscribeResource(ctx, uri)
		return w.err
	case wanted:
		return w.err
	case w.told:
		s.unsubscribeAtPlugin(context.WithoutCancel(ctx), uri)
		w.told, w.err = false, nil
	}
	s.native.subsMu.Lock()
	if w.n == 0 && s.native.subs[uri] == w {
		delete(s.native.subs, uri)
	}
	s.native.subsMu.Unlock()
	return nil
}

// unsubscribeTimeout bounds telling a plugin nobody watches a resource any
// more; a plugin that does not answer keeps sending updates nobody gets.
const unsubscribeTimeout = 5 * time.Second

func (s *Server) unsubscribeAtPlugin(ctx context.Context, uri string) {
	ctx, cancel := context.WithTimeout(ctx, unsubscribeTimeout)
	defer cancel()
	if err := s.opts.PluginResources.UnsubscribeResource(ctx, uri); err != nil {
		s.log.Debug("resource unsubscription not passed to its plugin", "uri", uri, "error", err)
	}
}

// listenResources subscribes the resourceSubscriptions of a 2026-07-28
// subscriptions/listen at the plugins that serve them, before mcp-go
// records them on the stream's session and acknowledges the stream; the
// stream's session releases them when it ends (session.end). The plugins
// are asked at once, so lazy plugins start side by side.
//
// A URI nobody serves, or one past the subscription bounds, fails the whole
// listen: mcp-go answers -32602 naming it, as 2026-07-28 answers an unknown
// resource, so nothing is subscribed here for a listen that will not run. A URI whose plugin refused the
// subscription or could not be reached is left out of the request, hence
// out of the acknowledgement, which lists only what the server honours.
// A plugin that takes no subscriptions (it sends its updates unasked) is
// asked nothing and its URIs are acknowledged.
func (s *Server) listenResources(ctx context.Context, se *session, req *mcp.SubscriptionsListenRequest) {
	uris := req.Params.Notifications.ResourceSubscriptions
	if len(uris) == 0 || slices.ContainsFunc(uris, func(uri string) bool { return len(uri) > maxSubscriptionURI || !s.subscribable(uri) }) {
		return
	}
	seen := make(map[string]bool, len(uris))
	uris = slices.DeleteFunc(slices.Clone(uris), func(uri string) bool {
		dup := seen[uri]
		seen[uri] = true
		return dup
	})
	if len(uris) > maxSessionSubscriptions {
		return // mcp-go refuses the listen, through SubscribeToResourceErr
	}
	errs := make([]error, len(uris))
	var wg sync.WaitGroup
	for i, uri := range uris {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.subscribed(ctx, se.id, uri)
		}()
	}
	wg.Wait()
	kept := make([]string, 0, len(uris))
	for i, uri := range uris {
		if errs[i] != nil {
			s.log.Warn("resource left out of a subscriptions/listen: its plugin did not take the subscription", "uri", uri, "error", errs[i])
			s.unsubscribed(ctx, se.id, uri)
			continue
		}
		kept = append(kept, uri)
	}
	req.Params.Notifications.ResourceSubscriptions = kept
}

// releaseResources releases the resource subscriptions a listen stream's
// session holds at the plugins, however the stream ended.
func (se *session) releaseResources() {
	if se.srv.opts.PluginResources != nil {
		se.srv.sessionEnded(context.Background(), se.id)
	}
}
