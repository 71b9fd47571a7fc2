package config

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Limits are the HTTP front's defences against clients that hold resources:
// connections, slow requests and sessions.
type Limits struct {
	MaxConnections int           // open connections; at the cap the longest-idle one is closed for a newcomer
	ReadTimeout    time.Duration // reading one request, body included
	IdleTimeout    time.Duration // a keep-alive connection without a request
	MaxSessions    int           // MCP sessions held at once; initialize over it gets an error
	// MaxSessionsPerPrincipal: sessions one principal holds at once; 0 lets
	// the gateway choose (MaxSessions when only one principal can connect,
	// else a tenth of it).
	MaxSessionsPerPrincipal int
	SessionIdleTimeout      time.Duration // a session without a request ends
	SessionMaxAge           time.Duration // a sealed session ends, deleted or not, on every replica
}

// Defaults of the limits and of audit log rotation.
const (
	DefaultMaxConnections     = 512
	DefaultReadTimeout        = 30 * time.Second
	DefaultIdleTimeout        = 2 * time.Minute
	DefaultMaxSessions        = 10000
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultAuditLogMaxSize    = 100 << 20
	DefaultAuditLogKeep       = 5
)

// DefaultLimits are the limits of a listen block that sets none.
func DefaultLimits() Limits {
	return Limits{
		MaxConnections:     DefaultMaxConnections,
		ReadTimeout:        DefaultReadTimeout,
		IdleTimeout:        DefaultIdleTimeout,
		MaxSessions:        DefaultMaxSessions,
		SessionIdleTimeout: DefaultSessionIdleTimeout,
		SessionMaxAge:      DefaultSessionMaxAge,
	}
}

// limits reads the listen block's limits over the defaults.
func (d *decoder) limits(l *Listen, s *listenSpec) {
	d.count(&l.MaxConnections, "max_connections", s.MaxConnections, s.MaxConnectionsRange, 1)
	d.duration(&l.ReadTimeout, "read_timeout", s.ReadTimeout, s.ReadTimeoutRange, true)
	d.duration(&l.IdleTimeout, "idle_timeout", s.IdleTimeout, s.IdleTimeoutRange, true)
	d.count(&l.MaxSessions, "max_sessions", s.MaxSessions, s.MaxSessionsRange, 1)
	d.count(&l.MaxSessionsPerPrincipal, "max_sessions_per_principal", s.MaxSessionsPerPrincipal, s.MaxSessionsPerPrincipalRange, 1)
	if l.MaxSessionsPerPrincipal > l.MaxSessions {
		d.problem(s.MaxSessionsPerPrincipalRange, fmt.Sprintf("max_sessions_per_principal %d is more than max_sessions (%d); one principal cannot hold more sessions than the gateway does: lower it, or raise max_sessions",
			l.MaxSessionsPerPrincipal, l.MaxSessions))
	}
	d.duration(&l.SessionIdleTimeout, "session_idle_timeout", s.SessionIdleTimeout, s.SessionIdleTimeoutRange, true)
	d.duration(&l.SessionMaxAge, "session_max_age", s.SessionMaxAge, s.SessionMaxAgeRange, true)
}

// audit reads the audit log's rotation settings over the defaults.
func (d *decoder) audit(g *Gateway, s *gatewaySpec) {
	if s.AuditLogMaxSize != nil {
		if *s.AuditLogMaxSize < 1<<10 {
			d.problem(s.AuditLogMaxSizeRange, fmt.Sprintf("audit_log_max_size %d is too small; write a size in bytes of at least 1024, such as %d (100 MiB)", *s.AuditLogMaxSize, DefaultAuditLogMaxSize))
		} else {
			g.AuditLogMaxSize = *s.AuditLogMaxSize
		}
	}
	d.count(&g.AuditLogKeep, "audit_log_keep", s.AuditLogKeep, s.AuditLogKeepRange, 1)
}

// count sets *dst from a whole number written in the file, at least least.
func (d *decoder) count(dst *int, name string, v *int, rng hcl.Range, least int) {
	if v == nil {
		return
	}
	if *v < least {
		d.problem(rng, fmt.Sprintf("%s must be at least %d, not %d", name, least, *v))
		return
	}
	*dst = *v
}
