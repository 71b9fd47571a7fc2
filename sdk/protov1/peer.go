package protov1

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Methods a backend may send to the client that made a call.
const (
	MethodCreateMessage = "sampling/createMessage"
	MethodElicit        = "elicitation/create"
	MethodListRoots     = "roots/list"
)

// Peer is the MCP client a call came from, as far as a backend may ask it
// things while the call runs. The gateway makes one per call; the host
// carries it to the plugin over go-plugin's broker, so a backend always asks
// the client that made the call, never another.
type Peer interface {
	// Capabilities tells what the client declared it can answer.
	Capabilities() PeerCapabilities
	// Request sends a server-to-client request (MethodCreateMessage,
	// MethodElicit or MethodListRoots) with params as JSON, and returns the
	// client's result as JSON. The error is a *PeerError when the client
	// answered with an error or could not be asked.
	//
	// A client on MCP 2026-07-28 cannot be sent a request mid-call: the
	// gateway then stops the call (its context ends, and Request fails with
	// code -32800), answers the client with an input-required result, and
	// runs the call again from the start when the client retries with its
	// answer; the same request (same method and params) then returns that
	// answer at once. A backend that asks its client should therefore ask
	// before it changes anything.
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// PeerCapabilities is what a client declared of the server-to-client
// requests it serves.
type PeerCapabilities struct {
	Sampling         bool
	SamplingTools    bool // sampling with tools and toolChoice
	Elicitation      bool
	ElicitationForm  bool
	ElicitationURL   bool
	Roots            bool
	RootsListChanged bool
}

// Supports reports whether the client declared it serves method.
func (c PeerCapabilities) Supports(method string) bool {
	switch method {
	case MethodCreateMessage:
		return c.Sampling
	case MethodElicit:
		return c.Elicitation
	case MethodListRoots:
		return c.Roots
	}
	return false
}

// PeerError is a server-to-client request that got no result: the client
// answered with a JSON-RPC error, or could not be asked at all (Code
// CodeNoPeer), so the backend can tell its own caller why.
type PeerError struct {
	Method  string
	Code    int
	Message string
}

// CodeNoPeer marks a request the client could not be asked: it did not
// declare the capability, or the call has no client to ask.
const CodeNoPeer = -32601

func (e *PeerError) Error() string {
	return fmt.Sprintf("%s: %s (code %d)", e.Method, e.Message, e.Code)
}

// ErrNoPeer is wrapped by the PeerError of a request no client can answer.
var ErrNoPeer = errors.New("the calling client does not accept this request")

func (e *PeerError) Unwrap() error {
	if e.Code == CodeNoPeer {
		return ErrNoPeer
	}
	return nil
}

type peerKey struct{}

// WithPeer returns ctx carrying the client of the call it serves.
func WithPeer(ctx context.Context, p Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// PeerFrom returns the client ctx's call came from, or nil.
func PeerFrom(ctx context.Context) Peer {
	p, _ := ctx.Value(peerKey{}).(Peer)
	return p
}
