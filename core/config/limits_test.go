package config

import (
	"strings"
	"testing"
	"time"
)

func TestLimitsAndAuditRotation(t *testing.T) {
	c, err := Parse([]byte("listen {}\n"), "t.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen.Limits != DefaultLimits() || c.Gateway.AuditLogMaxSize != DefaultAuditLogMaxSize || c.Gateway.AuditLogKeep != DefaultAuditLogKeep {
		t.Errorf("defaults: %+v %d %d", c.Listen.Limits, c.Gateway.AuditLogMaxSize, c.Gateway.AuditLogKeep)
	}
	c, err = Parse([]byte(`listen {
  max_connections      = 64
  read_timeout         = "5s"
  idle_timeout         = "30s"
  max_sessions         = 100
  max_sessions_per_principal = 20
  session_idle_timeout = "10m"
  oauth {
    issuer             = "https://auth.example.com"
    audience           = "https://gw.example.com/mcp"
    max_token_lifetime = "2h"
    allow_any_typ      = true
  }
}
gateway {
  audit_log          = "audit.jsonl"
  audit_log_max_size = 1048576
  audit_log_keep     = 3
}
`), "t.hcl")
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{MaxConnections: 64, ReadTimeout: 5 * time.Second, IdleTimeout: 30 * time.Second, MaxSessions: 100, MaxSessionsPerPrincipal: 20, SessionIdleTimeout: 10 * time.Minute, SessionMaxAge: DefaultSessionMaxAge}
	if c.Listen.Limits != want {
		t.Errorf("limits %+v, want %+v", c.Listen.Limits, want)
	}
	if o := c.Listen.OAuth; o.MaxTokenLifetime != 2*time.Hour || !o.AllowAnyTyp {
		t.Errorf("oauth %+v", o)
	}
	if c.Gateway.AuditLogMaxSize != 1<<20 || c.Gateway.AuditLogKeep != 3 {
		t.Errorf("audit rotation %d %d", c.Gateway.AuditLogMaxSize, c.Gateway.AuditLogKeep)
	}

	for src, wantErr := range map[string]string{
		"listen {\n  max_connections = 0\n}\n":                                  "t.hcl:2:21: max_connections must be at least 1, not 0",
		"listen {\n  read_timeout = \"soon\"\n}\n":                              `t.hcl:2:18: invalid duration "soon" for read_timeout`,
		"listen {\n  max_sessions = -1\n}\n":                                    "t.hcl:2:18: max_sessions must be at least 1, not -1",
		"listen {\n  max_sessions_per_principal = 0\n}\n":                       "t.hcl:2:32: max_sessions_per_principal must be at least 1, not 0",
		"listen {\n  max_sessions = 50\n  max_sessions_per_principal = 60\n}\n": "t.hcl:3:32: max_sessions_per_principal 60 is more than max_sessions (50)",
		"listen {\n  max_sessions_per_principal = 10001\n}\n":                   "t.hcl:2:32: max_sessions_per_principal 10001 is more than max_sessions (10000)",
		"gateway {\n  audit_log_max_size = 10\n}\n":                             "t.hcl:2:24: audit_log_max_size 10 is too small",
		"gateway {\n  audit_log_keep = 0\n}\n":                                  "t.hcl:2:20: audit_log_keep must be at least 1, not 0",
		"listen {\n  session_idle_timeout = \"0s\"\n}\n":                        "t.hcl:2:26: session_idle_timeout must be greater than zero",
	} {
		_, err := Parse([]byte(src), "t.hcl")
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%q: %v, want %s", src, err, wantErr)
		}
	}
}
