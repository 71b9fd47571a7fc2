package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// What a Server is built from, and the checks New makes of it.

// DefaultMaxRequestBytes is the largest JSON-RPC message accepted when
// Options.MaxRequestBytes is zero.
const DefaultMaxRequestBytes int64 = 4 << 20

// Tool is one entry of tools/list and the handler that runs it.
type Tool struct {
	Name, Title, Description string
	// InputSchema is a JSON Schema object; nil means {"type":"object"}.
	InputSchema json.RawMessage
	Annotations protov1.Annotations
	// LiveDescription, when set, gives the description at each tools/list
	// (see ToolsChanged); Description is then its first value.
	LiveDescription func() string
	// Handle runs the tool. events receives progress/log the handler reports; the
	// gateway forwards progress as notifications/progress with the request's
	// progressToken (only if the client sent one), in order, and none after the
	// result. An error becomes an isError result whose text is the error.
	Handle func(ctx context.Context, args json.RawMessage, events protov1.CallEvents) (*protov1.Result, error)
}

// Resource is a native MCP resource and the function that reads it.
type Resource struct {
	Def  protov1.Resource
	Read func(ctx context.Context) ([]protov1.ResourceContents, error)
}

// Options configure a Server. Only Name, Version and Tools are required.
type Options struct {
	Name, Version string
	// Tools is the complete tools/list, in the order clients see it.
	Tools []Tool
	// Resources are native MCP resources; clients may subscribe to them.
	Resources []Resource
	// UnknownTool builds the error text for tools/call of a name not in Tools.
	UnknownTool func(name string) string
	Logger      hclog.Logger
	// MaxRequestBytes bounds one JSON-RPC message (DefaultMaxRequestBytes when 0).
	MaxRequestBytes int64
	// Tokens are the accepted HTTP bearer tokens; empty means no authentication.
	Tokens []string
	// AllowUnauthenticated lets ServeHTTP serve a non-loopback address
	// with neither Tokens nor OAuth; without it that is refused.
	AllowUnauthenticated bool
	// AllowedOrigins and AllowedHosts extend the loopback names an HTTP request's
	// Origin and Host may carry.
	AllowedOrigins, AllowedHosts []string
	// TLSCert and TLSKey are PEM files; set both to serve HTTPS.
	TLSCert, TLSKey string
	// ShutdownGrace is how long calls in flight may finish once ServeHTTP's
	// context ends (DefaultShutdownGrace when 0).
	ShutdownGrace time.Duration
	// MaxConnections bounds the connections ServeHTTP holds open
	// (DefaultMaxConnections when 0); idle ones are closed to admit new ones.
	MaxConnections int
	// ReadTimeout bounds reading one request, body included
	// (DefaultReadTimeout when 0); IdleTimeout closes a keep-alive
	// connection with no request (DefaultIdleTimeout when 0).
	ReadTimeout, IdleTimeout time.Duration
	// MaxSessions bounds the HTTP sessions held at once (DefaultMaxSessions
	// when 0); an initialize over it gets an error.
	MaxSessions int
	// MaxSessionsPerPrincipal bounds the HTTP sessions one principal holds
	// at once, at most MaxSessions. When 0: MaxSessions if only one
	// principal can connect (no Tokens and no OAuth, or a single token),
	// else a tenth of it.
	MaxSessionsPerPrincipal int
	// SessionIdleTimeout ends an HTTP session that sent no request for this
	// long (DefaultSessionIdleTimeout when 0).
	SessionIdleTimeout time.Duration
	// Handlers are more HTTP endpoints served beside /mcp, on the same
	// listener and behind the same checks (Host, Origin, bearer token, body
	// limit), keyed by http.ServeMux pattern: "/metrics". /healthz and /readyz
	// are the gateway's own.
	Handlers map[string]http.Handler
	// Instructions, when set, gives the server instructions at each
	// initialize and server/discover.
	Instructions func() string
	// Ready tells /readyz whether this gateway can take calls; an error says
	// why not (logged, never shown to the prober). nil means ready.
	Ready func() error
	// OAuth, when set, also accepts the JWT access tokens of an authorization
	// server and serves the metadata that tells clients where to get them.
	OAuth *OAuth
	// ProtocolVersions are the MCP versions served, among
	// DefaultProtocolVersions (all of them when empty). Leaving out
	// 2026-07-28 makes clients fall back to initialize.
	ProtocolVersions []string
	// InputStateKey signs the requestState of the input-required results
	// of 2026-07-28 (at least 32 bytes). Replicas behind one load balancer
	// share a key so a retry may reach any of them; empty means a random key
	// of this process, so a retry must come back to it.
	InputStateKey []byte
	// SessionKeys, when set, seal the state of each legacy HTTP session
	// into its Mcp-Session-Id (encrypted and authenticated), so every
	// replica holding the same keys serves every session. Each is at least
	// MinSessionKey random bytes; the first seals, all open, so a key is
	// rotated by putting the new one first. Empty means random ids, each
	// session held by the process that opened it.
	SessionKeys [][]byte
	// SessionMaxAge bounds the life of a sealed session, deleted or not
	// (DefaultSessionMaxAge when 0).
	SessionMaxAge time.Duration
	// PreviousInputStateKeys are still accepted on a requestState, not
	// used to sign one: a key being rotated out.
	PreviousInputStateKeys [][]byte
	// InputStateTTL is how long a client has to answer an input-required
	// result (DefaultInputStateTTL when 0).
	InputStateTTL time.Duration
	// RootsChanged, when set, is called when a client sends
	// notifications/roots/list_changed, with the Caller in ctx. It runs on
	// the connection's reader and must return quickly.
	RootsChanged func(ctx context.Context)
	// Prompts, when set, serves prompts/list and prompts/get; call
	// PromptsChanged when its list changes.
	Prompts PromptSource
	// PluginResources, when set, adds its resources and templates to the
	// native ones, reads them and carries their subscriptions; call
	// ResourcesChanged when its lists change.
	PluginResources ResourceSource
	// Completions, when set, serves completion/complete and declares the
	// completions capability.
	Completions Completer
	// Tasks, when set, runs the calls of one tool as MCP tasks, and the
	// gateway declares the tasks capability (tasks.go).
	Tasks *Tasks
	// AwaitCatalog, when set, is called before a prompt or resource the
	// sources do not know is answered as unknown, with its name or URI: it
	// may wait (bounded) for plugins that have not yet told what they serve,
	// as right after start-up.
	AwaitCatalog func(ctx context.Context, name string)
}

// OptionError is an Options value New cannot serve with.
type OptionError struct {
	Field   string
	Problem string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("gateway options: %s: %s", e.Field, e.Problem)
}

func (s *Server) check() error {
	if s.opts.Name == "" {
		return &OptionError{Field: "Name", Problem: "is empty"}
	}
	if s.maxBytes < 0 {
		return &OptionError{Field: "MaxRequestBytes", Problem: "is negative"}
	}
	if s.opts.MaxConnections < 0 || s.opts.ReadTimeout < 0 || s.opts.IdleTimeout < 0 {
		return &OptionError{Field: "MaxConnections/ReadTimeout/IdleTimeout", Problem: "is negative"}
	}
	if s.opts.MaxSessions < 0 {
		return &OptionError{Field: "MaxSessions", Problem: "is negative"}
	}
	switch n := s.opts.MaxSessionsPerPrincipal; {
	case n < 0:
		return &OptionError{Field: "MaxSessionsPerPrincipal", Problem: "is negative"}
	case n > s.maxSessions():
		return &OptionError{Field: "MaxSessionsPerPrincipal", Problem: fmt.Sprintf("%d is more than MaxSessions (%d)", n, s.maxSessions())}
	}
	if s.opts.SessionIdleTimeout < 0 {
		return &OptionError{Field: "SessionIdleTimeout", Problem: "is negative"}
	}
	seen := map[string]bool{}
	for i, t := range s.opts.Tools {
		field := fmt.Sprintf("Tools[%d]", i)
		switch {
		case t.Name == "":
			return &OptionError{Field: field + ".Name", Problem: "is empty"}
		case seen[t.Name]:
			return &OptionError{Field: field + ".Name", Problem: fmt.Sprintf("%q is listed twice", t.Name)}
		case t.Handle == nil:
			return &OptionError{Field: field + ".Handle", Problem: fmt.Sprintf("tool %q has no handler", t.Name)}
		case t.InputSchema != nil && !isJSONObject(t.InputSchema):
			return &OptionError{Field: field + ".InputSchema", Problem: fmt.Sprintf("tool %q: not a JSON object", t.Name)}
		}
		seen[t.Name] = true
	}
	uris := map[string]bool{}
	for i, r := range s.opts.Resources {
		field := fmt.Sprintf("Resources[%d]", i)
		switch {
		case r.Def.URI == "":
			return &OptionError{Field: field + ".Def.URI", Problem: "is empty"}
		case uris[r.Def.URI]:
			return &OptionError{Field: field + ".Def.URI", Problem: fmt.Sprintf("%q is listed twice", r.Def.URI)}
		case r.Read == nil:
			return &OptionError{Field: field + ".Read", Problem: fmt.Sprintf("resource %q has no reader", r.Def.URI)}
		}
		uris[r.Def.URI] = true
	}
	for i, tok := range s.opts.Tokens {
		if tok == "" {
			return &OptionError{Field: fmt.Sprintf("Tokens[%d]", i), Problem: "is empty: an empty token would accept any request"}
		}
	}
	if (s.opts.TLSCert == "") != (s.opts.TLSKey == "") {
		return &OptionError{Field: "TLSCert/TLSKey", Problem: "set both or neither"}
	}
	if t := s.opts.Tasks; t != nil && (t.Runner == nil || !seen[t.Tool]) {
		return &OptionError{Field: "Tasks", Problem: fmt.Sprintf("needs a Runner and the name of one of Tools; got tool %q", t.Tool)}
	}
	if err := checkVersions(s.opts.ProtocolVersions); err != nil {
		return err
	}
	if err := checkInputState(s.opts.InputStateKey, s.opts.PreviousInputStateKeys, s.opts.InputStateTTL); err != nil {
		return err
	}
	if err := checkSessionKeys(s.opts.SessionKeys, s.opts.SessionMaxAge); err != nil {
		return err
	}
	if err := checkOAuth(s.opts.OAuth, s.opts.Handlers); err != nil {
		return err
	}
	if err := checkProbeRoutes(s.routes()); err != nil {
		return err
	}
	return checkHandlers(s.routes())
}

// checkHandlers registers the extra handlers on a scratch mux, where a bad
// or clashing pattern (one that would shadow /mcp) is an error instead of the
// panic http.ServeMux raises.
func checkHandlers(handlers map[string]http.Handler) (err error) {
	mux := http.NewServeMux()
	mux.Handle(endpointPath, http.NotFoundHandler())
	for pattern, h := range handlers {
		field := fmt.Sprintf("Handlers[%q]", pattern)
		if h == nil {
			return &OptionError{Field: field, Problem: "is nil"}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = &OptionError{Field: field, Problem: fmt.Sprint(r)}
				}
			}()
			mux.Handle(pattern, h)
		}()
		if err != nil {
			return err
		}
	}
	return nil
}
