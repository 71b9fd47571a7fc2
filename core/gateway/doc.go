// Package gateway is the MCP front of toolgate: the one endpoint an assistant
// connects to, over stdio or streamable HTTP.
//
// It knows nothing about plugins. It serves the tools and resources it is given
// and forwards what their handlers report, so that everything between the client
// and the meta-tools — sessions, authentication, DNS-rebinding protection,
// request limits, progress and cancellation — is in one place and tested against
// a real MCP client.
//
// JSON-RPC dispatch (initialize, tools/list, resources/*, logging/setLevel,
// cancellation) is mark3labs/mcp-go's MCPServer. The two transports are this
// package's own: mcp-go's streamable HTTP transport hands every notification of a
// session to whichever open stream reads the shared channel first, so a call's
// progress could arrive on another stream, after its result, or not at all; and
// its stdio transport keeps one process-wide session and can drop calls still
// queued when input ends. Here a call's progress and log lines travel on the stream of the
// request that made the call, in order, and never after its result.
package gateway
