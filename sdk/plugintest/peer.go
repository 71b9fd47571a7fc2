package plugintest

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Peer is a client for tests of handlers that ask their caller things. Put it
// in a call's protov1.CallRequest.Peer; it answers each method with its
// function, and declares the capabilities of the functions that are set, so a
// nil function is a client without that capability. It records every request
// it was sent.
type Peer struct {
	// CreateMessage answers sampling/createMessage (declares sampling, with tools).
	CreateMessage func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// Elicit answers elicitation/create (declares elicitation, form and URL).
	Elicit func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// ListRoots answers roots/list (declares roots, with listChanged).
	ListRoots func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
	// Caps, when set, is declared instead of what the functions imply.
	Caps *protov1.PeerCapabilities

	mu       sync.Mutex
	requests []PeerRequest
}

// PeerRequest is one request a Peer was sent.
type PeerRequest struct {
	Method string
	Params json.RawMessage
}

var _ protov1.Peer = (*Peer)(nil)

func (p *Peer) Capabilities() protov1.PeerCapabilities {
	if p.Caps != nil {
		return *p.Caps
	}
	return protov1.PeerCapabilities{
		Sampling: p.CreateMessage != nil, SamplingTools: p.CreateMessage != nil,
		Elicitation: p.Elicit != nil, ElicitationForm: p.Elicit != nil, ElicitationURL: p.Elicit != nil,
		Roots: p.ListRoots != nil, RootsListChanged: p.ListRoots != nil,
	}
}

func (p *Peer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p.mu.Lock()
	p.requests = append(p.requests, PeerRequest{Method: method, Params: append(json.RawMessage(nil), params...)})
	p.mu.Unlock()
	var f func(context.Context, json.RawMessage) (json.RawMessage, error)
	switch method {
	case protov1.MethodCreateMessage:
		f = p.CreateMessage
	case protov1.MethodElicit:
		f = p.Elicit
	case protov1.MethodListRoots:
		f = p.ListRoots
	}
	if f == nil {
		return nil, &protov1.PeerError{Method: method, Code: protov1.CodeNoPeer, Message: "the test client does not serve " + method}
	}
	return f(ctx, params)
}

// Requests returns the requests the Peer was sent so far.
func (p *Peer) Requests() []PeerRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]PeerRequest(nil), p.requests...)
}

// Answer returns a Peer function that answers every request with v as JSON.
func Answer(v any) func(context.Context, json.RawMessage) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	return func(context.Context, json.RawMessage) (json.RawMessage, error) {
		if err != nil {
			return nil, err
		}
		return b, nil
	}
}
