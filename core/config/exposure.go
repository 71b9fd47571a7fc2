package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// refreshWarnings re-derives Warnings from the current values, so Layer can change
// Listen and keep them true.
func (c *Config) refreshWarnings() {
	c.Warnings = nil
	l := c.Listen
	if l.HTTP == "" || isLoopback(l.HTTP) {
		return
	}
	msg := fmt.Sprintf("listen address %q is not loopback, so other hosts can reach the gateway", l.HTTP)
	switch {
	case !l.authenticates():
		if !l.AllowUnauthenticated {
			// exposure reports it as an error.
			return
		}
		msg += "; allow_unauthenticated is set and no token or oauth is configured, so any of them can call every tool"
	case l.TLSCert == "":
		msg += "; without tls_cert and tls_key, tokens cross the network in clear text"
	}
	where := c.httpFrom
	if where == "" {
		where = c.File
	}
	c.Warnings = append(c.Warnings, where+": "+msg)
}

// authenticates says whether HTTP clients must prove who they are.
func (l *Listen) authenticates() bool {
	return len(l.Tokens) > 0 || l.OAuth != nil
}

// exposure is the problem of a config that serves every tool to the network
// without authentication, unless the operator opted in; nil otherwise. It is
// reported where the address was set: the file's position, or the variable
// or flag.
func (c *Config) exposure() *hcl.Diagnostic {
	l := c.Listen
	if l.HTTP == "" || isLoopback(l.HTTP) || l.authenticates() || l.AllowUnauthenticated {
		return nil
	}
	msg := fmt.Sprintf("listen address %q is not loopback and no token or oauth is configured, so anyone who can reach it could call every tool; "+
		"set tokens (or TOOLGATE_TOKEN), configure an oauth block in listen, bind 127.0.0.1, "+
		"or, when something in front of the gateway authenticates every request, set allow_unauthenticated = true in listen (TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED=true)", l.HTTP)
	if c.httpRange.Filename != "" {
		return errorf(c.httpRange, "%s", msg)
	}
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: c.httpFrom + ": " + msg}
}
