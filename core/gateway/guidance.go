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

// guidanceOptions are the mcp-go options that serve Options.Instructions as
// they stand at each initialize or server/discover.
func (s *Server) guidanceOptions() []server.ServerOption {
	var opts []server.ServerOption
	if s.opts.Instructions != nil {
		hooks := &server.Hooks{}
		hooks.AddAfterInitialize(func(_ context.Context, _ any, _ *mcp.InitializeRequest, r *mcp.InitializeResult) {
			r.Instructions = s.opts.Instructions()
		})
		hooks.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, r *mcp.DiscoverResult) {
			r.Instructions = s.opts.Instructions()
		})
		opts = append(opts, server.WithHooks(hooks))
	}
	return opts
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
		if se.Initialized() {
			se.push(n)
		}
	})
}
