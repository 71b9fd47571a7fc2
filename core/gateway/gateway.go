package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/toolgate/toolgate/sdk/protov1"
)

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

// Server serves one fixed set of tools and resources to any number of MCP
// sessions over stdio and streamable HTTP.
type Server struct {
	opts  Options
	log   hclog.Logger
	mcp   *server.MCPServer
	tools map[string]bool
	// defs are the tools as mcp-go serves them, for the x-mcp-header checks.
	defs      map[string]mcp.Tool
	resources map[string]bool
	maxBytes  int64
	// auth checks OAuth access tokens; nil without Options.OAuth.
	auth *verifier
	// stateKeys check the requestState of input-required results; the
	// first signs them.
	stateKeys [][]byte
	// spent holds the states whose accepted elicitation ran their call.
	spent *spentStates
	// sealer seals legacy session ids; nil without Options.SessionKeys.
	sealer *sealer

	// sessions holds every live session by ID, for broadcasts and HTTP lookup.
	sessions sync.Map
	// inflight holds the running requests by session and id, for cancellation.
	inflight sync.Map
	// asks holds the requests sent to clients awaiting their answers, by
	// session and id (see peer.go); askSeq numbers them.
	asks   sync.Map
	askSeq atomic.Uint64
	// taskIndex lists the tasks this process created, for tasks/list.
	taskIndex taskIndex
	// taskInputs holds what tasks ask their clients (taskinput.go).
	taskInputs taskInputs
	// taskWatchers are the listens following tasks (tasklisten.go).
	taskWatchers taskWatchers

	// probe answers /healthz and /readyz and counts requests being served.
	probe probeState

	// native holds the plugin prompts and resources served as MCP's own.
	native native

	closeOnce sync.Once
	closed    chan struct{}
}

// New checks opts and builds a Server; nothing is served until ServeHTTP,
// ServeStdio or Handler is used.
func New(opts Options) (*Server, error) {
	s := &Server{
		opts:      opts,
		log:       opts.Logger,
		tools:     make(map[string]bool, len(opts.Tools)),
		defs:      make(map[string]mcp.Tool, len(opts.Tools)),
		resources: make(map[string]bool, len(opts.Resources)),
		maxBytes:  opts.MaxRequestBytes,
		spent:     newSpentStates(maxSpentStates),
		closed:    make(chan struct{}),
	}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	if s.maxBytes == 0 {
		s.maxBytes = DefaultMaxRequestBytes
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	stateKey := opts.InputStateKey
	if len(stateKey) == 0 {
		key, err := newStateKey()
		if err != nil {
			return nil, err
		}
		stateKey = key
	}
	// A key given for both uses must not serve both as it is.
	for _, k := range append([][]byte{stateKey}, opts.PreviousInputStateKeys...) {
		key, err := deriveKey(k, inputStateKeyLabel)
		if err != nil {
			return nil, fmt.Errorf("input state key: %w", err)
		}
		s.stateKeys = append(s.stateKeys, key)
	}
	var err error
	if len(opts.SessionKeys) > 0 {
		if s.sealer, err = newSealer(opts.SessionKeys); err != nil {
			return nil, err
		}
	}
	if opts.OAuth != nil {
		s.opts.OAuth = s.resourceFromAudience(opts.OAuth)
		s.auth = newVerifier(s.opts.OAuth, s.log.Named("oauth"))
	}

	order := make(map[string]int, len(opts.Tools))
	mcpOpts := []server.ServerOption{
		server.WithToolCapabilities(s.hasLiveDescriptions()),
		server.WithLogging(),
		// mcp-go sorts tools by name; clients see them in the order given.
		server.WithToolFilter(func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
			out := make([]mcp.Tool, len(tools))
			copy(out, tools)
			sortByOrder(out, order)
			s.liveDescriptions(out, order)
			return out
		}),
	}
	mcpOpts = append(mcpOpts, s.hooks())
	mcpOpts = append(mcpOpts, s.nativeOptions()...)
	if opts.Tasks != nil {
		mcpOpts = append(mcpOpts, server.WithTaskCapabilities(true, true, true),
			server.WithExtensions(map[string]any{TasksExtension: map[string]any{}}))
	}
	s.mcp = server.NewMCPServer(opts.Name, opts.Version, mcpOpts...)
	if opts.RootsChanged != nil {
		s.mcp.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, func(ctx context.Context, _ mcp.JSONRPCNotification) {
			if se, ok := server.ClientSessionFromContext(ctx).(*session); ok {
				ctx = withCaller(ctx, Caller{Principal: se.owner, Session: se.callerSession()})
			}
			opts.RootsChanged(ctx)
		})
	}

	entries := make([]server.ServerTool, 0, len(opts.Tools))
	for i := range opts.Tools {
		t := &opts.Tools[i]
		def := toolDefinition(t)
		if opts.Tasks != nil && opts.Tasks.Tool == t.Name {
			def.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
		}
		if err := mcp.ValidateParamHeaderAnnotations(&def); err != nil {
			return nil, &OptionError{Field: fmt.Sprintf("Tools[%d] (%s).InputSchema", i, t.Name), Problem: err.Error()}
		}
		order[t.Name] = i
		s.tools[t.Name] = true
		s.defs[t.Name] = def
		entries = append(entries, server.ServerTool{Tool: def, Handler: s.toolHandler(t)})
	}
	if len(entries) > 0 {
		s.mcp.AddTools(entries...)
	}
	for i := range opts.Resources {
		r := &opts.Resources[i]
		s.resources[r.Def.URI] = true
		s.mcp.AddResource(resourceDefinition(r.Def), s.resourceHandler(r))
	}
	s.startNative()
	return s, nil
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

// NotifyLog sends one of the gateway's own notices (a catalog change) as
// notifications/message to every initialized session whose log level admits
// level (debug … emergency). data is marshalled as JSON.
func (s *Server) NotifyLog(level string, data any) {
	s.notifyLog(level, data, false)
}

// NotifyPluginLog sends a plugin's log line as notifications/message, with
// data {"plugin": plugin, "data": data}, only to sessions that asked for logs
// with logging/setLevel at level or below: a backend's logs can be verbose
// and say more than its tools do. Every such session gets the line, whoever
// opened it: plugins have no per-principal permissions yet, so a gateway
// serving several principals shares plugin logs among those that ask.
func (s *Server) NotifyPluginLog(plugin, level string, data any) {
	s.notifyLog(level, map[string]any{"plugin": plugin, "data": data}, true)
}

func (s *Server) notifyLog(level string, data any, askedOnly bool) {
	lvl := mcp.LoggingLevel(level)
	if !validLevel(lvl) {
		s.log.Warn("log notification dropped: unknown level", "level", level)
		return
	}
	raw, err := json.Marshal(data)
	if err != nil {
		s.log.Warn("log notification dropped: data is not JSON", "error", err)
		return
	}
	n := notification(string(mcp.MethodNotificationMessage), map[string]any{
		"level":  lvl,
		"logger": s.opts.Name,
		"data":   json.RawMessage(raw),
	})
	s.eachSession(func(se *session) {
		if se.Initialized() && se.wants(n.Method) && (!askedOnly || se.levelSet.Load()) && lvl.ShouldSendTo(se.GetLogLevel()) {
			se.push(n)
		}
	})
}

// ResourceUpdated sends notifications/resources/updated to the sessions
// subscribed to uri.
func (s *Server) ResourceUpdated(uri string) {
	n := notification(mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri})
	s.eachSession(func(se *session) {
		if se.IsSubscribedToResource(uri) {
			se.push(n)
		}
	})
}

// Close ends every session: open HTTP event streams finish and further
// requests of those sessions get 404. ServeHTTP calls it on shutdown; an
// embedder of Handler calls it before closing its own http.Server.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		if s.auth != nil {
			s.auth.keys.close()
		}
	})
	s.eachSession(func(se *session) { s.dropSession(se) })
}

func (s *Server) eachSession(fn func(*session)) {
	s.sessions.Range(func(_, v any) bool {
		fn(v.(*session))
		return true
	})
}

func notification(method string, params map[string]any) mcp.JSONRPCNotification {
	return mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: method,
			Params: mcp.NotificationParams{AdditionalFields: params},
		},
	}
}

func validLevel(l mcp.LoggingLevel) bool {
	return l.ShouldSendTo(mcp.LoggingLevelDebug)
}

func isJSONObject(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(raw, &obj) == nil && obj != nil
}
