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
)

// notesBuffer is how many session-wide notifications wait for a slow or absent
// reader before new ones are dropped. A call's own progress never waits here.
const notesBuffer = 256

// defaultLogLevel applies until the client sends logging/setLevel.
const defaultLogLevel = mcp.LoggingLevelInfo

// ErrUnknownResource is returned to resources/subscribe of a URI not served.
var ErrUnknownResource = fmt.Errorf("unknown resource: %w", server.ErrResourceNotFound)

// session is one connected client: the stdio peer, or one HTTP Mcp-Session-Id.
// It implements the session interfaces mcp-go's dispatcher looks for.
type session struct {
	id  string
	srv *Server
	// owner opened the session; anyone else is told it does not exist.
	owner Principal

	initialized atomic.Bool
	level       atomic.Value // mcp.LoggingLevel
	// levelSet: the client sent logging/setLevel, asking for log broadcasts.
	levelSet atomic.Bool
	lastSeen atomic.Int64 // unix nanoseconds of the last request

	mu         sync.Mutex
	clientInfo mcp.Implementation
	clientCaps mcp.ClientCapabilities
	subs       map[string]bool

	// notes carries session-wide notifications (log broadcasts, resource
	// updates, anything mcp-go sends) to the transport's single reader.
	notes    chan mcp.JSONRPCNotification
	done     chan struct{}
	doneOnce sync.Once

	// listenStop ends the current HTTP listening stream (guarded by mu).
	listenStop chan struct{}
}

var (
	_ server.SessionWithLogging                  = (*session)(nil)
	_ server.SessionWithClientInfo               = (*session)(nil)
	_ server.SessionWithResourceSubscriptionsErr = (*session)(nil)
)

// newSession creates and registers a session with a fresh random ID, owned
// by the principal ctx was authenticated as.
func (s *Server) newSession(ctx context.Context) (*session, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("session id: %w", err)
	}
	se := &session{
		id:    hex.EncodeToString(b[:]),
		srv:   s,
		owner: credentialFrom(ctx).who,
		subs:  map[string]bool{},
		notes: make(chan mcp.JSONRPCNotification, notesBuffer),
		done:  make(chan struct{}),
	}
	se.level.Store(defaultLogLevel)
	se.touch()
	if err := s.mcp.RegisterSession(ctx, se); err != nil {
		return nil, fmt.Errorf("register session: %w", err)
	}
	s.sessions.Store(se.id, se)
	select {
	case <-s.closed:
		// Close ran while this session was being made; it must not outlive it.
		s.dropSession(se)
		return nil, errServerClosed
	default:
	}
	return se, nil
}

// lookupSession finds a live session by ID.
func (s *Server) lookupSession(id string) (*session, bool) {
	v, ok := s.sessions.Load(id)
	if !ok {
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

func (se *session) NotificationChannel() chan<- mcp.JSONRPCNotification { return se.notes }

func (se *session) Initialize() { se.initialized.Store(true) }

func (se *session) Initialized() bool { return se.initialized.Load() }

func (se *session) SetLogLevel(level mcp.LoggingLevel) {
	se.level.Store(level)
	se.levelSet.Store(true)
}

func (se *session) GetLogLevel() mcp.LoggingLevel { return se.level.Load().(mcp.LoggingLevel) }

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
func (se *session) SubscribeToResourceErr(uri string) error {
	if !se.srv.subscribable(uri) {
		return fmt.Errorf("%w: %s", ErrUnknownResource, uri)
	}
	se.SubscribeToResource(uri)
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
	select {
	case se.notes <- n:
	default:
		se.srv.log.Debug("notification dropped: session is not reading", "session", se.id, "method", n.Method)
	}
}

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
