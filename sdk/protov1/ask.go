package protov1

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Capability names, as MCP spells them in a client's capabilities.
const (
	CapabilitySampling    = "sampling"
	CapabilityElicitation = "elicitation"
	CapabilityRoots       = "roots"
)

// capabilityOf names the client capability a method needs.
func capabilityOf(method string) string {
	switch method {
	case MethodCreateMessage:
		return CapabilitySampling
	case MethodElicit:
		return CapabilityElicitation
	case MethodListRoots:
		return CapabilityRoots
	}
	return ""
}

// CodeInvalidParams is JSON-RPC's code for params that are not what the
// method takes.
const CodeInvalidParams = -32602

// CheckPeerRequest says whether p may be sent method with params: a known
// method, params that are a JSON object (or nothing), a client that declared
// the capability, including the parts the params use (sampling with tools,
// elicitation in URL mode). The error is a *PeerError; one wrapping
// ErrNoPeer when the client cannot be asked.
func CheckPeerRequest(p Peer, method string, params json.RawMessage) error {
	capName := capabilityOf(method)
	if capName == "" {
		return &PeerError{Method: method, Code: CodeNoPeer,
			Message: "not a request a server may send a client (want sampling/createMessage, elicitation/create or roots/list)"}
	}
	if p == nil {
		return &PeerError{Method: method, Code: CodeNoPeer, Message: "no client to ask: the call did not come from a client that can be asked"}
	}
	var fields map[string]json.RawMessage
	if t := bytes.TrimSpace(params); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &fields); err != nil || fields == nil {
			return &PeerError{Method: method, Code: CodeInvalidParams, Message: "params must be a JSON object"}
		}
	}
	caps := p.Capabilities()
	if !caps.Supports(method) {
		return &PeerError{Method: method, Code: CodeNoPeer,
			Message: fmt.Sprintf("the calling client does not support %s (it did not declare the %q capability)", capName, capName)}
	}
	switch method {
	case MethodCreateMessage:
		if has(fields, "tools") && !caps.SamplingTools {
			return &PeerError{Method: method, Code: CodeNoPeer,
				Message: "the calling client does not support sampling with tools (it did not declare sampling.tools)"}
		}
	case MethodElicit:
		var mode string
		if raw, ok := fields["mode"]; ok {
			_ = json.Unmarshal(raw, &mode)
		}
		// A client that declared elicitation without modes takes forms, as
		// before modes existed.
		formOK := caps.ElicitationForm || !caps.ElicitationURL
		if mode == "url" && !caps.ElicitationURL {
			return &PeerError{Method: method, Code: CodeNoPeer,
				Message: "the calling client does not support URL elicitation (it did not declare elicitation.url)"}
		}
		if mode != "url" && !formOK {
			return &PeerError{Method: method, Code: CodeNoPeer,
				Message: "the calling client does not support form elicitation (it declared only elicitation.url)"}
		}
	}
	return nil
}

func has(fields map[string]json.RawMessage, key string) bool {
	raw, ok := fields[key]
	return ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// AskPeer sends p a server-to-client request after CheckPeerRequest allowed
// it. A nil p, or a client without the capability, answers a *PeerError
// wrapping ErrNoPeer without asking anyone.
func AskPeer(ctx context.Context, p Peer, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := CheckPeerRequest(p, method, params); err != nil {
		return nil, err
	}
	return p.Request(ctx, method, params)
}
