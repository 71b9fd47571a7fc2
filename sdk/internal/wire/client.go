package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	goplugin "github.com/hashicorp/go-plugin"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolgate/toolgate/sdk/internal/pluginv1"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// ErrNoResult means a call's stream ended without the one result it owes.
var ErrNoResult = errors.New("plugin ended the call without a result")

// ErrConnectionLost marks a request whose connection to the plugin broke,
// which is how a plugin process that exits shows first.
var ErrConnectionLost = errors.New("connection to the plugin lost")

// Client is a protov1.Backend served by a plugin across gRPC.
type Client struct {
	RPC pluginv1.PluginClient
	// Broker serves a call's Peer to the plugin; nil serves none.
	Broker *goplugin.GRPCBroker

	mu        sync.Mutex
	infoKnown bool
	callbacks bool // the plugin declared client_callbacks at a minor that has them
	tasks     bool // the plugin declared tasks at a minor that has them
	taskInput bool // the plugin declared task_input at a minor that has it
}

var _ protov1.Backend = (*Client)(nil)

// errorOf maps a gRPC status back to the protov1 sentinel it came from.
func errorOf(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.NotFound:
		return &remoteError{msg: st.Message(), kind: protov1.ErrNotFound}
	case codes.InvalidArgument:
		return &remoteError{msg: st.Message(), kind: protov1.ErrInvalidArgument}
	case codes.FailedPrecondition:
		return &remoteError{msg: st.Message(), kind: protov1.ErrNoTask}
	case codes.DeadlineExceeded:
		return &remoteError{msg: st.Message(), kind: context.DeadlineExceeded}
	case codes.Canceled:
		return &remoteError{msg: st.Message(), kind: context.Canceled}
	case codes.Unavailable:
		return &remoteError{msg: st.Message(), kind: ErrConnectionLost}
	case codes.Unknown, codes.Internal:
		// A plugin's own error (Unknown) or a panic it recovered
		// (Internal): its words are the message, without gRPC's framing.
		return &remoteError{msg: st.Message(), kind: ErrPlugin}
	}
	return err
}

// ErrPlugin is an error a plugin returned that matches no sentinel of
// protov1: a Read, Render or Complete function's own failure.
var ErrPlugin = errors.New("plugin error")

// remoteError is a plugin's error as the plugin worded it, still matching
// its sentinel. The plugin's text already says "not found" where it should;
// adding the sentinel's text again read "not found: not found".
type remoteError struct {
	msg  string
	kind error
}

func (e *remoteError) Error() string {
	if e.msg == "" {
		return e.kind.Error()
	}
	return e.msg
}

func (e *remoteError) Unwrap() error { return e.kind }

func (c *Client) GetInfo(ctx context.Context) (protov1.Info, error) {
	r, err := c.RPC.GetInfo(ctx, &pluginv1.GetInfoRequest{})
	if err != nil {
		return protov1.Info{}, errorOf(err)
	}
	caps := r.GetCapabilities()
	c.mu.Lock()
	c.infoKnown = true
	c.callbacks = caps.GetClientCallbacks() && r.GetProtocolMinor() >= protov1.MinorClientCallbacks
	c.tasks = caps.GetTasks() && r.GetProtocolMinor() >= protov1.MinorTasks
	c.taskInput = c.tasks && caps.GetTaskInput() && r.GetProtocolMinor() >= protov1.MinorTaskInput
	c.mu.Unlock()
	return protov1.Info{
		Name: r.GetName(), Version: r.GetVersion(), ProtocolMinor: r.GetProtocolMinor(),
		Capabilities: protov1.Capabilities{
			Tools: caps.GetTools(), Resources: caps.GetResources(), Prompts: caps.GetPrompts(),
			Watch: caps.GetWatch(), Progress: caps.GetProgress(), ClientCallbacks: caps.GetClientCallbacks(),
			Completions: caps.GetCompletions(), ResourceSubscribe: caps.GetResourceSubscribe(),
			Tasks: caps.GetTasks(), TaskInput: caps.GetTaskInput(),
		},
		ConfigSchema: raw(r.GetConfigSchema()),
	}, nil
}

func (c *Client) Configure(ctx context.Context, config json.RawMessage) error {
	r, err := c.RPC.Configure(ctx, &pluginv1.ConfigureRequest{ConfigJson: config})
	if err != nil {
		return errorOf(err)
	}
	if len(r.GetErrors()) == 0 {
		return nil
	}
	ce := &protov1.ConfigError{}
	for _, f := range r.GetErrors() {
		ce.Fields = append(ce.Fields, protov1.FieldError{Path: f.GetPath(), Message: f.GetMessage()})
	}
	return ce
}

func (c *Client) ListTools(ctx context.Context) ([]protov1.Tool, error) {
	r, err := c.RPC.ListTools(ctx, &pluginv1.ListToolsRequest{})
	if err != nil {
		return nil, errorOf(err)
	}
	out := make([]protov1.Tool, len(r.GetTools()))
	for i, t := range r.GetTools() {
		out[i] = toolFromPB(t)
	}
	return out, nil
}

// CallTool streams the call's events to events and returns its result. It
// returns an error only when the plugin could not answer.
func (c *Client) CallTool(ctx context.Context, req *protov1.CallRequest, events protov1.CallEvents) (*protov1.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream, and with it the plugin's handler, on every path
	pb := &pluginv1.CallToolRequest{
		Name: req.Name, ArgumentsJson: req.Arguments, MetaJson: req.Meta, WantProgress: req.WantProgress,
	}
	// The call's client is served only once the plugin asks for it (see
	// callbacks.go), so a call whose plugin never asks costs nothing more.
	// A client that declared nothing a plugin may ask is described all the
	// same, so the plugin can say what it lacks.
	var peer *callPeer
	if req.Peer != nil && c.Broker != nil && c.servesCallbacks(ctx) {
		caps := req.Peer.Capabilities()
		pb.ClientCapabilities = capsToPB(caps)
		if asksAnything(caps) {
			peer = &callPeer{broker: c.Broker, id: c.Broker.NextId(), peer: req.Peer}
			defer peer.end()
			pb.CallbackBrokerId = peer.id
		}
	}
	stream, err := c.RPC.CallTool(ctx, pb)
	if err != nil {
		return nil, errorOf(err)
	}
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			return nil, ErrNoResult
		}
		if err != nil {
			return nil, errorOf(err)
		}
		switch e := ev.GetEvent().(type) {
		case *pluginv1.CallToolEvent_Result:
			return resultFromPB(e.Result), nil
		case *pluginv1.CallToolEvent_Progress:
			if events != nil {
				events.Progress(protov1.Progress{Progress: e.Progress.GetProgress(), Total: e.Progress.GetTotal(), Message: e.Progress.GetMessage()})
			}
		case *pluginv1.CallToolEvent_Log:
			if events != nil {
				events.Log(*logFromPB(e.Log))
			}
		case *pluginv1.CallToolEvent_ClientWanted:
			peer.serve()
		}
	}
}

func (c *Client) ListResources(ctx context.Context) ([]protov1.Resource, error) {
	r, err := c.RPC.ListResources(ctx, &pluginv1.ListResourcesRequest{})
	if err != nil {
		return nil, errorOf(err)
	}
	out := make([]protov1.Resource, len(r.GetResources()))
	for i, x := range r.GetResources() {
		out[i] = resourceFromPB(x)
	}
	return out, nil
}

func (c *Client) ListResourceTemplates(ctx context.Context) ([]protov1.ResourceTemplate, error) {
	r, err := c.RPC.ListResourceTemplates(ctx, &pluginv1.ListResourceTemplatesRequest{})
	if err != nil {
		return nil, errorOf(err)
	}
	out := make([]protov1.ResourceTemplate, len(r.GetTemplates()))
	for i, x := range r.GetTemplates() {
		out[i] = templateFromPB(x)
	}
	return out, nil
}

func (c *Client) ReadResource(ctx context.Context, uri string) ([]protov1.ResourceContents, error) {
	r, err := c.RPC.ReadResource(ctx, &pluginv1.ReadResourceRequest{Uri: uri})
	if err != nil {
		return nil, errorOf(err)
	}
	out := make([]protov1.ResourceContents, len(r.GetContents()))
	for i, x := range r.GetContents() {
		out[i] = *contentsFromPB(x)
	}
	return out, nil
}

func (c *Client) ListPrompts(ctx context.Context) ([]protov1.Prompt, error) {
	r, err := c.RPC.ListPrompts(ctx, &pluginv1.ListPromptsRequest{})
	if err != nil {
		return nil, errorOf(err)
	}
	out := make([]protov1.Prompt, len(r.GetPrompts()))
	for i, x := range r.GetPrompts() {
		out[i] = promptFromPB(x)
	}
	return out, nil
}

func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*protov1.PromptResult, error) {
	r, err := c.RPC.GetPrompt(ctx, &pluginv1.GetPromptRequest{Name: name, Arguments: args})
	if err != nil {
		return nil, errorOf(err)
	}
	out := &protov1.PromptResult{Description: r.GetDescription()}
	for _, m := range r.GetMessages() {
		out.Messages = append(out.Messages, protov1.PromptMessage{Role: m.GetRole(), Content: contentFromPB(m.GetContent())})
	}
	return out, nil
}

// Watch forwards the plugin's change notices to emit until ctx ends or the
// plugin's stream does.
func (c *Client) Watch(ctx context.Context, emit func(protov1.Event)) error {
	stream, err := c.RPC.Watch(ctx, &pluginv1.WatchRequest{})
	if err != nil {
		return errorOf(err)
	}
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return errorOf(err)
		}
		if e, ok := eventFromPB(ev); ok {
			emit(e)
		}
	}
}

// servesCallbacks reports whether the plugin asks clients things, learning
// it from GetInfo once when the host has not asked yet.
func (c *Client) servesCallbacks(ctx context.Context) bool {
	c.mu.Lock()
	known, callbacks := c.infoKnown, c.callbacks
	c.mu.Unlock()
	if known {
		return callbacks
	}
	if _, err := c.GetInfo(ctx); err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.callbacks
}

// RootsChanged tells the plugin that a client's roots changed; a plugin that
// did not declare client_callbacks is not told (ErrUnsupported).
func (c *Client) RootsChanged(ctx context.Context) error {
	if !c.servesCallbacks(ctx) {
		return fmt.Errorf("%w: the plugin does not take client callbacks", ErrUnsupported)
	}
	_, err := c.RPC.RootsChanged(ctx, &pluginv1.RootsChangedRequest{})
	return unsupported(err)
}

// ErrUnsupported is wrapped by the errors of optional calls a plugin built
// against an older protocol minor does not serve.
var ErrUnsupported = errors.New("not served by this plugin")

// Health asks the plugin whether its backend answers.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.RPC.Health(ctx, &pluginv1.HealthRequest{})
	return unsupported(err)
}

// Stop asks the plugin to end what it runs politely.
func (c *Client) Stop(ctx context.Context) error {
	_, err := c.RPC.Stop(ctx, &pluginv1.StopRequest{})
	return unsupported(err)
}

func unsupported(err error) error {
	if status.Code(err) == codes.Unimplemented {
		return fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return errorOf(err)
}
