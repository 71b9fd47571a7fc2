package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Every tools/call hands its handler a protov1.Peer: the client that made
// the call, which a backend may ask for sampling, elicitation or roots while
// the call runs. On a legacy session the request goes to the client on the
// call's own stream and the answer comes back as a JSON-RPC response; on
// 2026-07-28 it becomes an input-required result (see inputstate.go).

// askKey names a request sent to a client: the session it went to and its id.
type askKey struct {
	session string
	id      string // idIdentity
}

// clientAnswer is a client's response to a request the gateway sent it.
type clientAnswer struct {
	result json.RawMessage
	err    *rpcError
}

// rpcRequest is a request this gateway sends to a client.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// peerCapabilities reads what a client declared it serves.
func peerCapabilities(c mcp.ClientCapabilities) protov1.PeerCapabilities {
	var p protov1.PeerCapabilities
	if c.Sampling != nil {
		p.Sampling = true
		p.SamplingTools = c.Sampling.Tools != nil
	}
	if c.Elicitation != nil {
		p.Elicitation = true
		// An empty elicitation capability means form, as before form and
		// URL modes were told apart.
		p.ElicitationForm = c.Elicitation.Form != nil || c.Elicitation.URL == nil
		p.ElicitationURL = c.Elicitation.URL != nil
	}
	if c.Roots != nil {
		p.Roots = true
		p.RootsListChanged = c.Roots.ListChanged
	}
	return p
}

// checkAsk refuses, before anything is sent, a request the client said it
// cannot serve.
func checkAsk(caps protov1.PeerCapabilities, method string, params json.RawMessage) error {
	if present(params) && !isJSONObject(params) {
		return &protov1.PeerError{Method: method, Code: mcp.INVALID_PARAMS, Message: "params must be a JSON object"}
	}
	noPeer := func(what string) error {
		return &protov1.PeerError{Method: method, Code: protov1.CodeNoPeer, Message: fmt.Sprintf(
			"the client that made this call did not declare %s, so it cannot be asked; use a client that declares it, or a tool that does not need it", what)}
	}
	switch method {
	case protov1.MethodCreateMessage, protov1.MethodElicit, protov1.MethodListRoots:
	default:
		return &protov1.PeerError{Method: method, Code: mcp.METHOD_NOT_FOUND, Message: fmt.Sprintf(
			"a backend may ask its client only %s, %s or %s", protov1.MethodCreateMessage, protov1.MethodElicit, protov1.MethodListRoots)}
	}
	if !caps.Supports(method) {
		return noPeer(map[string]string{
			protov1.MethodCreateMessage: "the sampling capability",
			protov1.MethodElicit:        "the elicitation capability",
			protov1.MethodListRoots:     "the roots capability",
		}[method])
	}
	var p struct {
		Mode       string          `json:"mode"`
		Tools      json.RawMessage `json:"tools"`
		ToolChoice json.RawMessage `json:"toolChoice"`
	}
	_ = json.Unmarshal(params, &p)
	switch {
	case method == protov1.MethodCreateMessage && (present(p.Tools) || present(p.ToolChoice)) && !caps.SamplingTools:
		return noPeer("sampling with tools (sampling.tools)")
	case method == protov1.MethodElicit && p.Mode == "url" && !caps.ElicitationURL:
		return noPeer("URL elicitation (elicitation.url)")
	case method == protov1.MethodElicit && p.Mode != "url" && !caps.ElicitationForm:
		return noPeer("form elicitation (elicitation.form)")
	}
	return nil
}

// absentPeer is the peer of a call that has no way back to its client.
type absentPeer struct{}

func (absentPeer) Capabilities() protov1.PeerCapabilities { return protov1.PeerCapabilities{} }

func (absentPeer) Request(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	return nil, &protov1.PeerError{Method: method, Code: protov1.CodeNoPeer, Message: "this call has no client to ask"}
}

// streamPeer asks the client of a legacy session on the stream of the call.
type streamPeer struct {
	srv  *Server
	se   *session
	caps protov1.PeerCapabilities
	ev   *callEvents
	// call is the call's context: a request outliving the call is abandoned.
	call context.Context
}

func (p *streamPeer) Capabilities() protov1.PeerCapabilities { return p.caps }

func (p *streamPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := checkAsk(p.caps, method, params); err != nil {
		return nil, err
	}
	if !present(params) {
		params = nil
	}
	id := json.RawMessage(fmt.Sprintf(`"toolgate-%d"`, p.srv.askSeq.Add(1)))
	key := askKey{session: p.se.id, id: idIdentity(id)}
	ch := make(chan clientAnswer, 1)
	p.srv.asks.Store(key, ch)
	defer p.srv.asks.Delete(key)

	if err := p.ev.deliver(rpcRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params}); err != nil {
		return nil, &protov1.PeerError{Method: method, Code: protov1.CodeNoPeer, Message: "the call's stream to its client is closed: " + err.Error()}
	}
	select {
	case a := <-ch:
		if a.err != nil {
			return nil, &protov1.PeerError{Method: method, Code: a.err.Code, Message: a.err.Message}
		}
		return a.result, nil
	case <-ctx.Done():
		p.cancel(id, "the backend stopped waiting")
		return nil, fmt.Errorf("%s: no answer from the client: %w", method, context.Cause(ctx))
	case <-p.call.Done():
		p.cancel(id, "the call ended")
		return nil, fmt.Errorf("%s: no answer from the client before the call ended: %w", method, context.Cause(p.call))
	case <-p.se.done:
		return nil, &protov1.PeerError{Method: method, Code: protov1.CodeNoPeer, Message: "the client's session ended before it answered"}
	case <-p.se.deaf:
		return nil, &protov1.PeerError{Method: method, Code: protov1.CodeNoPeer, Message: "the client closed its input before it answered"}
	}
}

// cancel tells the client a request it was sent is no longer wanted, while
// the call's stream is still open.
func (p *streamPeer) cancel(id json.RawMessage, reason string) {
	_ = p.ev.deliver(rpcNotification{JSONRPC: mcp.JSONRPC_VERSION, Method: string(mcp.MethodNotificationCancelled),
		Params: map[string]any{"requestId": id, "reason": reason}})
}

// answerClient hands a client's response to the request of the session
// waiting for it. Anything else — an id never sent, one answered already, an
// answer from another session — is ignored, as JSON-RPC asks.
func (s *Server) answerClient(se *session, env *envelope) {
	v, ok := s.asks.LoadAndDelete(askKey{session: se.id, id: idIdentity(env.ID)})
	if !ok {
		s.log.Debug("client response ignored: no request of this session waits for it", "session", se.conn, "id", string(env.ID))
		return
	}
	a := clientAnswer{result: env.Result.raw}
	if env.Error.set {
		a.err = &rpcError{}
		if json.Unmarshal(env.Error.raw, a.err) != nil || a.err.Message == "" {
			a.err = &rpcError{Code: mcp.INTERNAL_ERROR, Message: "the client answered with an unreadable error: " + string(env.Error.raw)}
		}
	} else if !present(a.result) {
		a.err = &rpcError{Code: mcp.INTERNAL_ERROR, Message: "the client answered with a null result"}
	}
	v.(chan clientAnswer) <- a
}

// errInputRequired stops a 2026-07-28 call whose backend asked its client
// something: the call is answered with an input-required result instead.
var errInputRequired = errors.New("the client is asked for input")

// inputPeer answers a 2026-07-28 call's backend from the answers its client
// sent with the retry, and records what it asks beyond them.
type inputPeer struct {
	caps    protov1.PeerCapabilities
	answers map[string]json.RawMessage
	// stop ends the run of the call as soon as it asks something new.
	stop context.CancelCauseFunc

	mu    sync.Mutex
	asked map[string]json.RawMessage
}

func (p *inputPeer) Capabilities() protov1.PeerCapabilities { return p.caps }

func (p *inputPeer) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := checkAsk(p.caps, method, params); err != nil {
		return nil, err
	}
	key := inputKey(method, params)
	if a, ok := p.answers[key]; ok {
		return a, nil
	}
	if !present(params) {
		// roots/list has no params, but clients decode an absent one badly.
		params = json.RawMessage(`{}`)
	}
	b, err := json.Marshal(map[string]any{"method": method, "params": params})
	if err != nil {
		return nil, &protov1.PeerError{Method: method, Code: mcp.INVALID_PARAMS, Message: err.Error()}
	}
	p.mu.Lock()
	if p.asked == nil {
		p.asked = map[string]json.RawMessage{}
	}
	p.asked[key] = b
	p.mu.Unlock()
	p.stop(errInputRequired)
	return nil, &protov1.PeerError{Method: method, Code: mcp.REQUEST_INTERRUPTED,
		Message: "the client is asked for this with an input-required result; the call runs again with its answer"}
}

func (p *inputPeer) pending() map[string]json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.asked)
}

// newPeer makes the peer of one call. stop ends the call's run.
func (s *Server) newPeer(call context.Context, se *session, rs *requestScope, ev *callEvents, stop context.CancelCauseFunc) protov1.Peer {
	switch {
	case se == nil || rs == nil:
		return absentPeer{}
	case se.perRequest:
		return &inputPeer{caps: peerCapabilities(se.GetClientCapabilities()), answers: rs.answers, stop: stop}
	case rs.stream == nil:
		return absentPeer{}
	}
	return &streamPeer{srv: s, se: se, caps: peerCapabilities(se.GetClientCapabilities()), ev: ev, call: call}
}
