package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

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
		closed:    make(chan struct{}),
	}
	if s.log == nil {
		s.log = hclog.NewNullLogger()
	}
	if s.maxBytes == 0 {
		s.maxBytes = DefaultMaxRequestBytes
	}
	s.spent = newSpentStates(maxSpentStates, s.shareOf(maxSpentStates))
	s.taskIndex.init(s.taskShare())
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
