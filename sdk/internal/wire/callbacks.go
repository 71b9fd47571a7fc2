package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/toolgate/toolgate/sdk/internal/pluginv1"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// A call's client reaches the plugin as a ClientCallbacks service the host
// serves over go-plugin's broker for that call alone: a plugin can ask only
// the client of a call in progress, and nothing of it outlives the call. The
// host names a broker id with the call but serves nothing until the plugin
// says it wants the client (a ClientWanted event on the call's stream), so a
// call whose plugin never asks pays for no listener, connection or handshake.

// peerServer is the host's ClientCallbacks service for one call.
type peerServer struct {
	pluginv1.UnimplementedClientCallbacksServer
	peer protov1.Peer
}

func (s *peerServer) Request(ctx context.Context, req *pluginv1.ClientRequest) (*pluginv1.ClientResponse, error) {
	// The plugin is checked as well as trusted: it asks only for what the
	// client declared, whatever the plugin believes.
	res, err := protov1.AskPeer(ctx, s.peer, req.GetMethod(), raw(req.GetParamsJson()))
	var pe *protov1.PeerError
	switch {
	case err == nil:
		return &pluginv1.ClientResponse{ResultJson: res}, nil
	case errors.As(err, &pe):
		return &pluginv1.ClientResponse{ErrorCode: int32(pe.Code), ErrorMessage: pe.Message}, nil
	}
	return nil, statusOf(err)
}

// servePeer serves peer on broker id until stop, which returns once the
// listener and its server are gone. It returns once the plugin has been sent
// where to dial; ok is false when the broker could not listen, and nothing is
// served.
func servePeer(broker *goplugin.GRPCBroker, id uint32, peer protov1.Peer) (stop func(), ok bool) {
	var (
		mu      sync.Mutex
		srv     *grpc.Server
		stopped bool
	)
	listening := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// AcceptAndServe returns when srv stops, when the broker closes, or
		// at once when it cannot listen (the plugin's request then fails).
		broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(opts...)
			pluginv1.RegisterClientCallbacksServer(s, &peerServer{peer: peer})
			mu.Lock()
			defer mu.Unlock()
			srv = s
			if stopped {
				s.Stop() // Serve then returns at once
			}
			close(listening)
			return s
		})
	}()
	stop = func() {
		mu.Lock()
		stopped = true
		if srv != nil {
			srv.Stop()
		}
		mu.Unlock()
		<-done
	}
	select {
	case <-listening:
		return stop, true
	case <-done:
		return stop, false
	}
}

// callPeer is the host's side of one call's client: the broker id it names,
// served from the plugin's first ClientWanted until the call ends.
type callPeer struct {
	broker *goplugin.GRPCBroker
	id     uint32
	peer   protov1.Peer
	stop   func()
}

// serve starts the service once; later ClientWanted events find it running.
func (c *callPeer) serve() {
	if c == nil || c.stop != nil {
		return
	}
	stop, ok := servePeer(c.broker, c.id, c.peer)
	c.stop = stop
	if !ok {
		// The plugin's dial then fails with a timeout it reports.
		stop()
		c.stop = func() {}
	}
}

func (c *callPeer) end() {
	if c != nil && c.stop != nil {
		c.stop()
	}
}

func capsToPB(c protov1.PeerCapabilities) *pluginv1.ClientCapabilities {
	return &pluginv1.ClientCapabilities{
		Sampling: c.Sampling, SamplingTools: c.SamplingTools,
		Elicitation: c.Elicitation, ElicitationForm: c.ElicitationForm, ElicitationUrl: c.ElicitationURL,
		Roots: c.Roots, RootsListChanged: c.RootsListChanged,
	}
}

func capsFromPB(c *pluginv1.ClientCapabilities) protov1.PeerCapabilities {
	return protov1.PeerCapabilities{
		Sampling: c.GetSampling(), SamplingTools: c.GetSamplingTools(),
		Elicitation: c.GetElicitation(), ElicitationForm: c.GetElicitationForm(), ElicitationURL: c.GetElicitationUrl(),
		Roots: c.GetRoots(), RootsListChanged: c.GetRootsListChanged(),
	}
}

// asksAnything reports whether a client declared any request a plugin may
// send it; one that declared none is not worth a callback service.
func asksAnything(c protov1.PeerCapabilities) bool {
	return c.Sampling || c.Elicitation || c.Roots
}

// remotePeer is a call's client as the plugin sees it: the host's
// ClientCallbacks service for the call, asked for and dialled with the first
// request, and closed when the call ends.
type remotePeer struct {
	caps   protov1.PeerCapabilities
	broker *goplugin.GRPCBroker
	id     uint32
	want   func() error // sends ClientWanted on the call's stream

	mu    sync.Mutex
	ready chan struct{} // made by the first request, closed when its dial is done
	conn  *grpc.ClientConn
	rpc   pluginv1.ClientCallbacksClient
	err   error
	ended bool
}

var _ protov1.Peer = (*remotePeer)(nil)

func (p *remotePeer) Capabilities() protov1.PeerCapabilities { return p.caps }

// connect asks the host to serve the call's client and dials it, once.
func (p *remotePeer) connect() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ready != nil {
		return p.ready
	}
	p.ready = make(chan struct{})
	if p.ended || p.id == 0 {
		p.err = errors.New("the call ended")
		if p.id == 0 {
			p.err = errors.New("the host serves no client for this call")
		}
		close(p.ready)
		return p.ready
	}
	go func() {
		var conn *grpc.ClientConn
		err := p.want()
		if err == nil {
			// Waits (go-plugin allows 5s) for where the host listens.
			conn, err = p.broker.Dial(p.id)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		switch {
		case err != nil:
			p.err = err
		case p.ended:
			_ = conn.Close()
			p.err = errors.New("the call ended")
		default:
			p.conn, p.rpc = conn, pluginv1.NewClientCallbacksClient(conn)
		}
		close(p.ready)
	}()
	return p.ready
}

func (p *remotePeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	select {
	case <-p.connect():
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	rpc, err := p.rpc, p.err
	p.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot reach the call's client through the host: %w", method, err)
	}
	r, err := rpc.Request(ctx, &pluginv1.ClientRequest{Method: method, ParamsJson: params})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: asking the call's client through the host: %w", method, errorOf(err))
	}
	if r.GetErrorCode() != 0 {
		return nil, &protov1.PeerError{Method: method, Code: int(r.GetErrorCode()), Message: r.GetErrorMessage()}
	}
	return raw(r.GetResultJson()), nil
}

// end closes the connection, now or as soon as its dial is done.
func (p *remotePeer) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	if p.conn != nil {
		_ = p.conn.Close()
	}
}
