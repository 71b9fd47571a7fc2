// Package gateway is the MCP front of toolgate: the one endpoint an assistant
// connects to, over stdio or streamable HTTP.
//
// It knows nothing about plugins. It serves the tools and resources it is given
// and forwards what their handlers report, so that everything between the client
// and the meta-tools — protocol versions, sessions, authentication,
// DNS-rebinding protection, request limits, progress and cancellation, and the
// requests a backend sends its client — is in one place and tested against
// real MCP clients.
//
// It speaks MCP 2026-07-28, where a request carries everything about its
// client and needs no session (stateless.go), beside 2025-11-25 and
// 2025-06-18 and their sessions; each such request gets a session of its own,
// so handlers see one kind of session whatever the version. Given session
// keys, a legacy session's state is sealed into its id (sealed.go), so that
// any replica behind a load balancer serves it. A call's backend
// may ask its client for sampling, elicitation and roots through the
// protov1.Peer in its context (peer.go): on the call's stream for a legacy
// session, as an input-required result on 2026-07-28 (inputstate.go).
//
// JSON-RPC dispatch (initialize, server/discover, tools/list, resources/*,
// subscriptions/listen, logging/setLevel, cancellation) is mark3labs/mcp-go's
// MCPServer. The two transports are this
// package's own: mcp-go's streamable HTTP transport hands every notification of a
// session to whichever open stream reads the shared channel first, so a call's
// progress could arrive on another stream, after its result, or not at all; and
// its stdio transport keeps one process-wide session and can drop calls still
// queued when input ends. Here a call's progress and log lines travel on the stream of the
// request that made the call, in order, and never after its result.
package gateway
