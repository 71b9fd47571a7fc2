// Package e2e tests the whole gateway from the outside: it builds the real
// binaries, runs `toolgate serve` as a process with real plugins (the npm MCP
// servers, the SDK's hello plugin and a plugin that misbehaves on request),
// drives it with the official MCP TypeScript SDK over streamable HTTP and
// stdio, and injects faults by signalling the processes it finds in the
// gateway's process tree. These tests state the product's acceptance
// criteria: what a client sees, and that no fault takes the gateway down or
// leaves a process behind.
package e2e
