package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// Probe paths. They are answered before the access checks: kubelet probes
// and load-balancer health checks carry no token and often a Host of a bare
// pod IP, and their answer says nothing beyond up or not.
const (
	healthPath = "/healthz"
	readyPath  = "/readyz"
)

// probeState is what the probes answer from: whether a shutdown has begun,
// and how many requests are being served, so a shutdown can wait for them.
type probeState struct {
	draining atomic.Bool
	// reason is the last readiness problem logged ("" when ready), so the log
	// says when readiness changes rather than on every probe.
	reason atomic.Value

	mu     sync.Mutex
	active int
	idle   chan struct{} // closed while active is zero
}

// probes serves the two probe paths itself and hands every other request to
// next, counting the ones that are work a shutdown should wait for.
func (s *Server) probes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case healthPath:
			// Alive is all this says: a draining gateway must not be
			// restarted by its liveness probe.
			writeProbe(w, true)
			return
		case readyPath:
			writeProbe(w, s.ready())
			return
		}
		// A listening stream (GET, or subscriptions/listen on 2026-07-28)
		// lives as long as its client wants; it is ended,
		// not waited for.
		if r.URL.Path == endpointPath && (r.Method == http.MethodGet || r.Header.Get("Mcp-Method") == "subscriptions/listen") {
			next.ServeHTTP(w, r)
			return
		}
		s.probe.begin()
		defer s.probe.end()
		next.ServeHTTP(w, r)
	})
}

// ready tells /readyz: not while shutting down, else what Options.Ready says.
func (s *Server) ready() bool {
	reason := ""
	switch {
	case s.probe.draining.Load():
		reason = "shutting down"
	case s.opts.Ready != nil:
		if err := s.opts.Ready(); err != nil {
			reason = err.Error()
		}
	}
	if old, _ := s.probe.reason.Swap(reason).(string); old != reason {
		if reason == "" {
			s.log.Info("ready to take calls")
		} else {
			s.log.Info("not ready to take calls", "reason", reason)
		}
	}
	return reason == ""
}

// writeProbe answers any method, since load balancers differ in which they
// send (HAProxy's default check is OPTIONS), with a body that names no
// plugin and no reason: the caller is unauthenticated.
func writeProbe(w http.ResponseWriter, ok bool) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if ok {
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("ok\n"))
		return
	}
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte("unavailable\n"))
}

// drain turns readiness off, so load balancers stop sending new work, then
// waits until no request is being served or ctx ends. The listener stays
// open meanwhile: calls still arriving before the balancer notices are
// served, not refused.
func (s *Server) drain(ctx context.Context) {
	s.probe.draining.Store(true)
	s.ready()
	s.probe.mu.Lock()
	idle, active := s.probe.idleChan(), s.probe.active
	s.probe.mu.Unlock()
	if active > 0 {
		s.log.Info("waiting for calls in flight", "calls", active)
	}
	select {
	case <-idle:
	case <-ctx.Done():
	}
}

func (p *probeState) begin() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active == 0 {
		p.idle = make(chan struct{})
	}
	p.active++
}

func (p *probeState) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active--
	if p.active == 0 {
		close(p.idle)
	}
}

// idleChan is closed while nothing is served; call with mu held.
func (p *probeState) idleChan() <-chan struct{} {
	if p.active == 0 {
		closed := make(chan struct{})
		close(closed)
		return closed
	}
	return p.idle
}

// checkProbeRoutes refuses an extra handler on a probe path, which the
// probes would shadow without a word.
func checkProbeRoutes(handlers map[string]http.Handler) error {
	for pattern := range handlers {
		path := pattern
		if _, rest, ok := strings.Cut(pattern, " "); ok {
			path = strings.TrimSpace(rest)
		}
		if i := strings.IndexByte(path, '/'); i >= 0 {
			path = path[i:]
		}
		if path == healthPath || path == readyPath {
			return &OptionError{Field: fmt.Sprintf("Handlers[%q]", pattern), Problem: path + " is served by the gateway itself"}
		}
	}
	return nil
}
