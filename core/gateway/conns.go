package gateway

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// Connection limits of ServeHTTP, when Options leave them zero.
const (
	// DefaultMaxConnections bounds the open connections: each holds a
	// descriptor, and the process shares its descriptors with its plugins.
	DefaultMaxConnections = 512
	// DefaultIdleTimeout closes a keep-alive connection with no request.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultReadTimeout bounds reading a request, headers and body: a
	// client trickling its body cannot hold a connection for ever.
	DefaultReadTimeout = 30 * time.Second
)

// connLimiter keeps the open connections of a listener at or under max. At
// the cap, a new connection makes room by closing the connection idle
// longest between requests, else the oldest one that has not sent a request
// yet; when every connection is running a request, the new one is answered
// 503 and closed.
// So idle keep-alive connections, however many pile up, never lock out a
// new client.
type connLimiter struct {
	net.Listener
	max int
	log hclog.Logger

	mu    sync.Mutex
	conns map[net.Conn]connEntry

	// refusing holds a place for each connection being refused.
	refusing chan struct{}
}

type connEntry struct {
	state http.ConnState
	since time.Time
}

func newConnLimiter(ln net.Listener, max int, log hclog.Logger) *connLimiter {
	return &connLimiter{Listener: ln, max: max, log: log, conns: map[net.Conn]connEntry{}, refusing: make(chan struct{}, maxRefusing)}
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.admit(c) {
			return c, nil
		}
		l.log.Warn("connection refused: every connection is busy", "limit", l.max, "remote", c.RemoteAddr().String())
		select {
		case l.refusing <- struct{}{}:
			go func() {
				defer func() { <-l.refusing }()
				refuseBusy(c, l.max)
			}()
		default:
			_ = c.Close() // a flood: closing costs nothing
		}
	}
}

// Refusing a connection at the cap is answered, so that the client reads
// why rather than a connection reset: for at most refuseTime, by at most
// maxRefusing goroutines at once.
const (
	refuseTime  = time.Second
	maxRefusing = 64
)

// refuseBusy answers a connection over the cap with 503 and closes it. It
// reads what the client sent before closing, or the close would reset the
// connection and lose the answer; the deadline bounds all of it, TLS
// handshake included.
func refuseBusy(c net.Conn, limit int) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(refuseTime))
	body := fmt.Sprintf("every one of the gateway's %d connections (listen.max_connections) is running a request; try again shortly\n", limit)
	if _, err := fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"+
		"Content-Length: %d\r\nRetry-After: 1\r\nConnection: close\r\n\r\n%s", len(body), body); err != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// admit registers c, closing another connection first if c would go over
// the cap; false means nothing could be closed.
func (l *connLimiter) admit(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) >= l.max {
		victim := l.victim()
		if victim == nil {
			return false
		}
		delete(l.conns, victim)
		_ = victim.Close()
	}
	l.conns[c] = connEntry{state: http.StateNew, since: time.Now()}
	return true
}

// victim is the connection to close for a newcomer (guarded by mu).
func (l *connLimiter) victim() net.Conn {
	var idle, fresh net.Conn
	var idleSince, freshSince time.Time
	for c, e := range l.conns {
		switch {
		case e.state == http.StateIdle && (idle == nil || e.since.Before(idleSince)):
			idle, idleSince = c, e.since
		case e.state == http.StateNew && (fresh == nil || e.since.Before(freshSince)):
			fresh, freshSince = c, e.since
		}
	}
	if idle != nil {
		return idle
	}
	return fresh
}

// track is http.Server's ConnState hook.
func (l *connLimiter) track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	case http.StateNew:
		// admit registered it already.
	default:
		if _, ok := l.conns[c]; ok {
			l.conns[c] = connEntry{state: state, since: time.Now()}
		}
	}
}

// releaseReadDeadline lifts http.Server's ReadTimeout once a request's body
// has been read: it is there to cut slow senders, and must not cut a long
// tool call or listening stream, whose context would end with it.
func releaseReadDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		release := func() { _ = rc.SetReadDeadline(time.Time{}) }
		if r.Body == nil || r.Body == http.NoBody {
			release()
		} else {
			r.Body = &bodyThenRelease{ReadCloser: r.Body, release: release}
		}
		next.ServeHTTP(w, r)
	})
}

type bodyThenRelease struct {
	io.ReadCloser
	release func()
	once    sync.Once
}

func (b *bodyThenRelease) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.release)
	}
	return n, err
}
