package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/toolgate/toolgate/internal/clip"
)

// notesBuffer is how many session-wide notifications wait for a slow or absent
// reader before new ones are dropped. A call's own progress never waits here.
// The queue grows to it on demand and holds nothing while empty.
const notesBuffer = 256

// defaultLogLevel applies until the client sends logging/setLevel.
const defaultLogLevel = mcp.LoggingLevelInfo

// ErrUnknownResource is returned to resources/subscribe of a URI not served.
var ErrUnknownResource = fmt.Errorf("unknown resource: %w", server.ErrResourceNotFound)

// session is one connected client: the stdio peer, one HTTP Mcp-Session-Id,
// or one 2026-07-28 request, which carries its client's identity and
// capabilities itself and gets a session of its own for as long as it runs.
// Handlers see the same kind of session either way. It implements the session
// interfaces mcp-go's dispatcher looks for.
type session struct {
	id  string
	srv *Server
	// owner opened the session; anyone else is told it does not exist.
	owner Principal
	// conn names the connection whose notifications/cancelled reach the
	// session's requests: the session itself, or for a 2026-07-28 request
	// over stdio the stdio session it came on. It is also the name logs and
	// audit lines give the session: its id, or for a sealed session the
	// handle sealed in it, never the sealed id.
	conn string
	// perRequest marks the session of one 2026-07-28 request: notifications
	// reach it only as its subscriptions/listen asked (see wants).
	perRequest bool
	filter     atomic.Pointer[mcp.SubscriptionFilter]
	// expires ends a sealed session (zero for any other): its id is good on
	// every replica until then.
	expires time.Time

	initialized atomic.Bool
	level       atomic.Value // mcp.LoggingLevel
	// levelSet: the client sent logging/setLevel, asking for log broadcasts.
	levelSet atomic.Bool
	lastSeen atomic.Int64 // unix nanoseconds of the last request

	mu         sync.Mutex
	version    string // negotiated at initialize; "" before it and on 2026-07-28
	clientInfo mcp.Implementation
	clientCaps mcp.ClientCapabilities
	subs       map[string]bool

	// notes carries session-wide notifications (log broadcasts, resource
	// updates, anything mcp-go sends) to the transport's single reader.
	notes    noteQueue
	done     chan struct{}
	doneOnce sync.Once
	// deaf is closed when the client can no longer answer a request (its
	// stdio input ended) though the session still finishes its calls.
	deaf     chan struct{}
	deafOnce sync.Once

	// listenStop ends the current HTTP listening stream (guarded by mu).
	listenStop chan struct{}
}

var (
	_ server.SessionWithLogging                  = (*session)(nil)
	_ server.SessionWithClientInfo               = (*session)(nil)
	_ server.SessionWithResourceSubscriptionsErr = (*session)(nil)
	_ server.SessionWithSubscriptionFilter       = (*session)(nil)
	_ server.SessionWithProtocolVersion          = (*session)(nil)
)

// newSession creates and registers a session with a fresh random ID, owned
// by the principal ctx was authenticated as.
func (s *Server) newSession(ctx context.Context) (*session, error) {
	se, err := s.makeSession(credentialFrom(ctx).who, notesBuffer)
	if err != nil {
		return nil, err
	}
	return se, s.register(ctx, se)
}

// register makes a new session known to mcp-go and to lookups.
func (s *Server) register(ctx context.Context, se *session) error {
	if err := s.mcp.RegisterSession(ctx, se); err != nil {
		return fmt.Errorf("register session: %w", err)
	}
	s.sessions.Store(se.id, se)
	select {
	case <-s.closed:
		// Close ran while this session was being made; it must not outlive it.
		s.dropSession(se)
		return errServerClosed
	default:
	}
	return nil
}

// makeSession makes a session whose notification queue holds notes.
func (s *Server) makeSession(owner Principal, notes int) (*session, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("session id: %w", err)
	}
	se := &session{
		id:    hex.EncodeToString(b[:]),
		srv:   s,
		owner: owner,
		subs:  map[string]bool{},
		done:  make(chan struct{}),
		deaf:  make(chan struct{}),
	}
	se.conn = se.id
	se.notes.init(notes)
	se.level.Store(defaultLogLevel)
	se.touch()
	return se, nil
}

// lookupSession finds a live session by ID.
func (s *Server) lookupSession(id string) (*session, bool) {
	v, ok := s.sessions.Load(id)
	if !ok || v.(*session).perRequest {
		return nil, false
	}
	return v.(*session), true
}

// dropSession forgets a session and ends whatever is reading its notifications.
func (s *Server) dropSession(se *session) {
	if _, loaded := s.sessions.LoadAndDelete(se.id); loaded {
		s.mcp.UnregisterSession(context.Background(), se.id)
	}
	se.doneOnce.Do(func() { close(se.done) })
}

func (se *session) SessionID() string { return se.id }

func (se *session) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return se.notes.sendChannel()
}

func (se *session) Initialize() { se.initialized.Store(true) }

func (se *session) Initialized() bool { return se.initialized.Load() }

func (se *session) SetLogLevel(level mcp.LoggingLevel) {
	se.level.Store(level)
	se.levelSet.Store(true)
}

func (se *session) GetLogLevel() mcp.LoggingLevel { return se.level.Load().(mcp.LoggingLevel) }

// SetProtocolVersion records what mcp-go negotiated, as the gateway's
// initialize hook answers it.
func (se *session) SetProtocolVersion(v string) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.version = se.srv.legacyVersion(v)
}

func (se *session) ProtocolVersion() string {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.version
}

func (se *session) GetClientInfo() mcp.Implementation {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.clientInfo
}

func (se *session) SetClientInfo(info mcp.Implementation) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.clientInfo = info
}

func (se *session) GetClientCapabilities() mcp.ClientCapabilities {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.clientCaps
}

func (se *session) SetClientCapabilities(caps mcp.ClientCapabilities) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.clientCaps = caps
}

// SubscribeToResourceErr refuses URIs this server does not serve, so a typo
// fails at once instead of waiting forever for updates.
// It also keeps a session within the subscription bounds (resourcesubs.go).
func (se *session) SubscribeToResourceErr(uri string) error {
	if len(uri) > maxSubscriptionURI {
		return fmt.Errorf("%w: the URI is %d bytes long, at most %d", errSubscriptionLimit, len(uri), maxSubscriptionURI)
	}
	if !se.srv.subscribable(uri) {
		return fmt.Errorf("%w: %s", ErrUnknownResource, clip.Name(uri))
	}
	se.mu.Lock()
	defer se.mu.Unlock()
	if !se.subs[uri] && len(se.subs) >= maxSessionSubscriptions {
		return fmt.Errorf("%w: the session holds %d subscriptions, the most one may; unsubscribe from one first", errSubscriptionLimit, len(se.subs))
	}
	se.subs[uri] = true
	return nil
}

func (se *session) SubscribeToResource(uri string) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.subs[uri] = true
}

func (se *session) UnsubscribeFromResource(uri string) {
	se.mu.Lock()
	defer se.mu.Unlock()
	delete(se.subs, uri)
}

func (se *session) SubscribedResources() []string {
	se.mu.Lock()
	defer se.mu.Unlock()
	out := make([]string, 0, len(se.subs))
	for uri := range se.subs {
		out = append(out, uri)
	}
	return out
}

func (se *session) IsSubscribedToResource(uri string) bool {
	se.mu.Lock()
	defer se.mu.Unlock()
	return se.subs[uri]
}

// push queues a session-wide notification without ever blocking the sender.
func (se *session) push(n mcp.JSONRPCNotification) {
	if !se.notes.push(n) {
		se.srv.log.Debug("notification dropped: session is not reading", "session", se.conn, "method", n.Method)
	}
}

// hearNoMore records that the client will answer no more requests.
func (se *session) hearNoMore() { se.deafOnce.Do(func() { close(se.deaf) }) }

func (se *session) touch() { se.lastSeen.Store(time.Now().UnixNano()) }

func (se *session) idleSince() time.Time { return time.Unix(0, se.lastSeen.Load()) }

// listen claims the session's HTTP listening stream. replaced is closed when a
// newer stream takes over, so exactly one reader drains notes at a time.
func (se *session) listen() (replaced <-chan struct{}, release func()) {
	stop := make(chan struct{})
	se.mu.Lock()
	if se.listenStop != nil {
		close(se.listenStop)
	}
	se.listenStop = stop
	se.mu.Unlock()
	return stop, func() {
		se.mu.Lock()
		if se.listenStop == stop {
			se.listenStop = nil
		}
		se.mu.Unlock()
	}
}

// SetSubscriptionFilter records what a subscriptions/listen asked for;
// mcp-go calls it as the listen starts and ends.
func (se *session) SetSubscriptionFilter(f mcp.SubscriptionFilter) {
	if f.IsEmpty() {
		se.filter.Store(nil)
		return
	}
	se.filter.Store(&f)
}

func (se *session) SubscriptionFilter() (mcp.SubscriptionFilter, bool) {
	if f := se.filter.Load(); f != nil {
		return *f, true
	}
	return mcp.SubscriptionFilter{}, false
}

// wants reports whether a broadcast notification may go to the session. A
// legacy session takes every kind; a 2026-07-28 listen stream only those it
// opted in to, and log lines only when its request named a log level.
func (se *session) wants(method string) bool {
	if !se.perRequest {
		return true
	}
	f, ok := se.SubscriptionFilter()
	switch method {
	case mcp.MethodNotificationToolsListChanged:
		return ok && f.ToolsListChanged
	case mcp.MethodNotificationResourcesListChanged:
		return ok && f.ResourcesListChanged
	case string(mcp.MethodNotificationMessage):
		return se.levelSet.Load()
	case mcp.MethodNotificationResourceUpdated:
		return true // only URIs the listen subscribed to reach it
	}
	return false
}

// callerSession is the session a call is audited under: none for a
// 2026-07-28 request over HTTP, the stdio session for one over stdio.
func (se *session) callerSession() string {
	if se.perRequest && se.conn == se.id {
		return ""
	}
	return se.conn
}
