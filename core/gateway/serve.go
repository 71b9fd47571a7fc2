package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
)

// DefaultShutdownGrace is how long calls in flight may finish on shutdown when
// Options.ShutdownGrace is zero.
const DefaultShutdownGrace = 10 * time.Second

// errShuttingDown is the cause of the contexts of calls stopped because the
// shutdown grace period ended: such a call answers that the gateway is
// shutting down, not that its client cancelled it.
var errShuttingDown = errors.New("the gateway is shutting down and the shutdown grace period ended")

// shutdownAnswerWindow is how long calls stopped at the end of the shutdown
// grace have to write their "shutting down" result before connections close.
const shutdownAnswerWindow = 2 * time.Second

// UnauthenticatedError is ServeHTTP refusing to serve every tool to the
// network without authentication.
type UnauthenticatedError struct {
	Addr string // the address bound, not loopback
}

func (e *UnauthenticatedError) Error() string {
	return fmt.Sprintf("refusing to serve MCP on %s without authentication: it is not loopback, so anyone who can reach it could run every tool; "+
		"set a bearer token or oauth, bind 127.0.0.1, or set allow_unauthenticated when something in front of the gateway authenticates", e.Addr)
}

// ServeHTTP serves streamable HTTP at /mcp on addr (HTTPS when TLSCert and
// TLSKey are set). ready, if not nil, is called with the bound address once
// connections are accepted. It returns nil when ctx ends, after a graceful
// shutdown: /readyz fails at once, calls in flight get the grace to finish
// while the listener still serves, then listening streams end. A
// non-loopback address with neither Tokens nor OAuth is refused with an
// *UnauthenticatedError unless AllowUnauthenticated.
func (s *Server) ServeHTTP(ctx context.Context, addr string, ready func(net.Addr)) error {
	var tlsConfig *tls.Config
	if s.opts.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(s.opts.TLSCert, s.opts.TLSKey)
		if err != nil {
			return fmt.Errorf("load TLS certificate %s: %w", s.opts.TLSCert, err)
		}
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	if !isLoopback(ln.Addr()) && len(s.opts.Tokens) == 0 && s.opts.OAuth == nil {
		if !s.opts.AllowUnauthenticated {
			_ = ln.Close()
			return &UnauthenticatedError{Addr: ln.Addr().String()}
		}
		s.log.Warn("SECURITY WARNING: serving MCP on a non-loopback address without authentication, as allow_unauthenticated says: "+
			"anyone who can reach this address can run every tool",
			"addr", ln.Addr().String())
	}
	scheme := "http"
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
		scheme = "https"
	}
	limiter := newConnLimiter(ln, orDefault(s.opts.MaxConnections, DefaultMaxConnections), s.log)

	// Handlers keep running through the grace period after ctx ends, so they
	// get a context of their own, cancelled only when the grace is over; the
	// cause tells a stopped call to say the gateway is shutting down.
	base, cancelBase := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelBase(nil)
	stop := make(chan struct{})
	t, handler := s.front(stop)
	srv := &http.Server{
		Handler:           releaseReadDeadline(handler),
		ReadHeaderTimeout: min(10*time.Second, orDefault(s.opts.ReadTimeout, DefaultReadTimeout)),
		ReadTimeout:       orDefault(s.opts.ReadTimeout, DefaultReadTimeout),
		IdleTimeout:       orDefault(s.opts.IdleTimeout, DefaultIdleTimeout),
		ConnState:         limiter.track,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          s.log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(limiter) }()
	s.log.Info("serving MCP over HTTP", "url", fmt.Sprintf("%s://%s%s", scheme, ln.Addr(), endpointPath))
	if s.auth != nil {
		go s.auth.keys.prefetch(base)
	}
	if ready != nil {
		ready(ln.Addr())
	}

	select {
	case err := <-served:
		t.dropAll()
		return fmt.Errorf("serve HTTP on %s: %w", addr, err)
	case <-ctx.Done():
	}

	s.log.Info("shutting down: readiness fails at once; calls in flight may finish", "grace", s.shutdownGrace())
	grace, cancelGrace := context.WithTimeout(context.Background(), s.shutdownGrace())
	defer cancelGrace()
	s.drain(grace)
	close(stop)
	err = srv.Shutdown(grace)
	t.dropAll()
	if err != nil {
		s.log.Warn("calls still running after the shutdown grace period; stopping them", "grace", s.shutdownGrace())
		cancelBase(errShuttingDown)
		answer, cancelAnswer := context.WithTimeout(context.Background(), shutdownAnswerWindow)
		defer cancelAnswer()
		if srv.Shutdown(answer) != nil {
			err = srv.Close()
		} else {
			err = nil
		}
	}
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("serve HTTP on %s: %w", addr, serveErr)
	}
	if err != nil {
		return fmt.Errorf("shut down HTTP on %s: %w", addr, err)
	}
	return nil
}

func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

func (s *Server) shutdownGrace() time.Duration {
	if s.opts.ShutdownGrace > 0 {
		return s.opts.ShutdownGrace
	}
	return DefaultShutdownGrace
}
