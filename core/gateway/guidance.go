package gateway

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Guidance that changes with the plugins behind the gateway: the server
// instructions and the descriptions that name the plugins are read when a
// client asks, not fixed when the server is built, and ToolsChanged tells
// connected clients to read tools/list again.

// hooks serve Options.Instructions as they stand at each initialize or
// server/discover, and keep initialize to the versions served.
func (s *Server) hooks() server.ServerOption {
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(_ context.Context, _ any, _ *mcp.InitializeRequest, r *mcp.InitializeResult) {
		r.ProtocolVersion = s.legacyVersion(r.ProtocolVersion)
		if s.opts.Instructions != nil {
			r.Instructions = s.opts.Instructions()
		}
	})
	if s.opts.Instructions != nil {
		hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, r *mcp.DiscoverResult) {
			r.Instructions = s.opts.Instructions()
		})
	}
	return server.WithHooks(hooks)
}

// hasLiveDescriptions reports whether tools/list can change, which the
// server then announces in its capabilities.
func (s *Server) hasLiveDescriptions() bool {
	for _, t := range s.opts.Tools {
		if t.LiveDescription != nil {
			return true
		}
	}
	return false
}

// liveDescriptions sets the current description of the tools that have one.
func (s *Server) liveDescriptions(tools []mcp.Tool, order map[string]int) {
	for i := range tools {
		if j, ok := order[tools[i].Name]; ok && s.opts.Tools[j].LiveDescription != nil {
			tools[i].Description = s.opts.Tools[j].LiveDescription()
		}
	}
}

// ToolsChanged sends notifications/tools/list_changed to every initialized
// session, for clients to read the tools' new descriptions.
func (s *Server) ToolsChanged() {
	n := notification(mcp.MethodNotificationToolsListChanged, nil)
	s.eachSession(func(se *session) {
		if se.Initialized() && se.wants(n.Method) {
			se.push(n)
		}
	})
}
