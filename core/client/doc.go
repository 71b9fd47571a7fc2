// Package client talks to a toolgate gateway over MCP streamable HTTP. The
// CLI, the scenario runner and the stdio bridge all use it.
//
// It has two layers. Conn is the transport: one MCP session over streamable
// HTTP that moves raw JSON-RPC messages, reads event streams, keeps the
// session ID and protocol version, waits out a gateway that is briefly
// unreachable, and, when the gateway answers 404 for the session (it
// restarted), initialises a new session with the parameters of the first one
// and sends the message again. Client sits on top: typed requests, progress
// and cancellation, and CallTool, which goes through the call_tool meta-tool
// and hands back the backend's CallToolResult as if the tool had been called
// directly.
//
// The transport is written here instead of taken from mark3labs/mcp-go's
// client, which is in go.mod, for the bridge's sake: a bridge must forward
// every message byte for byte (request IDs as the IDE wrote them, fields no
// library knows yet, server-to-client requests and the IDE's answers to them)
// and must recover from a lost session without the IDE noticing. mcp-go's
// client decodes messages into its own types and reports a lost session as
// ErrSessionTerminated for its caller to handle. Streamable HTTP is small —
// POST a message, read JSON or an event stream back, GET for the listening
// stream, DELETE to end — so one transport serves the bridge and the typed
// client alike.
package client
