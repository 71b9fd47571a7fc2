package wire

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolgate/toolgate/sdk/internal/pluginv1"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Server serves a Backend as the gRPC Plugin service.
type Server struct {
	pluginv1.UnimplementedPluginServer
	Backend protov1.Backend
	Logger  hclog.Logger
	// Broker reaches the host's per-call ClientCallbacks services; go-plugin
	// sets it when it registers the server.
	Broker *goplugin.GRPCBroker
	// OverrunGrace is how long a tool handler may outlive its call before
	// a warning is logged; 0 means DefaultOverrunGrace.
	OverrunGrace time.Duration
}

// statusOf maps a backend error to a gRPC status the client maps back.
func statusOf(err error) error {
	if err == nil {
		return nil
	}
	code := codes.Unknown
	switch {
	case errors.Is(err, protov1.ErrNotFound):
		code = codes.NotFound
	case errors.Is(err, protov1.ErrInvalidArgument):
		code = codes.InvalidArgument
	case errors.Is(err, protov1.ErrNoTask):
		code = codes.FailedPrecondition
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	}
	return status.Error(code, err.Error())
}

// guard turns a panic in plugin code into an error, so one bad handler cannot
// take the plugin process down with every other call in it.
func (s *Server) guard(what string, err *error) {
	if r := recover(); r != nil {
		s.Logger.Error("panic in plugin", "in", what, "panic", r, "stack", string(debug.Stack()))
		*err = status.Errorf(codes.Internal, "plugin panicked in %s: %v", what, r)
	}
}

func (s *Server) GetInfo(ctx context.Context, _ *pluginv1.GetInfoRequest) (resp *pluginv1.GetInfoResponse, err error) {
	defer s.guard("GetInfo", &err)
	info, err := s.Backend.GetInfo(ctx)
	if err != nil {
		return nil, statusOf(err)
	}
	c := info.Capabilities
	return &pluginv1.GetInfoResponse{
		Name: info.Name, Version: info.Version, ProtocolMinor: info.ProtocolMinor,
		Capabilities: &pluginv1.Capabilities{
			Tools: c.Tools, Resources: c.Resources, Prompts: c.Prompts,
			Watch: c.Watch, Progress: c.Progress, ClientCallbacks: c.ClientCallbacks,
			Completions: c.Completions, ResourceSubscribe: c.ResourceSubscribe,
			Tasks: c.Tasks, TaskInput: c.TaskInput,
		},
		ConfigSchema: info.ConfigSchema,
	}, nil
}

func (s *Server) Configure(ctx context.Context, req *pluginv1.ConfigureRequest) (resp *pluginv1.ConfigureResponse, err error) {
	defer s.guard("Configure", &err)
	cerr := s.Backend.Configure(ctx, raw(req.GetConfigJson()))
	resp = &pluginv1.ConfigureResponse{}
	if cerr == nil {
		return resp, nil
	}
	// Only a *ConfigError says the operator's settings are wrong, which no
	// retry can mend; any other failure (a backend that would not start) is
	// an error the host may try again.
	var ce *protov1.ConfigError
	if !errors.As(cerr, &ce) {
		return nil, statusOf(cerr)
	}
	for _, f := range ce.Fields {
		resp.Errors = append(resp.Errors, &pluginv1.FieldError{Path: f.Path, Message: f.Message})
	}
	return resp, nil
}

func (s *Server) ListTools(ctx context.Context, _ *pluginv1.ListToolsRequest) (resp *pluginv1.ListToolsResponse, err error) {
	defer s.guard("ListTools", &err)
	tools, err := s.Backend.ListTools(ctx)
	if err != nil {
		return nil, statusOf(err)
	}
	resp = &pluginv1.ListToolsResponse{Tools: make([]*pluginv1.Tool, len(tools))}
	for i, t := range tools {
		resp.Tools[i] = toolToPB(t)
	}
	return resp, nil
}

// streamEvents forwards a running call's events to its stream until the call
// returns; events reported after that are dropped, so none follows the result.
type streamEvents struct {
	mu     sync.Mutex
	done   bool
	stream grpc.ServerStreamingServer[pluginv1.CallToolEvent]
}

func (e *streamEvents) send(ev *pluginv1.CallToolEvent) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return nil
	}
	return e.stream.Send(ev)
}

func (e *streamEvents) finish(ev *pluginv1.CallToolEvent) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done = true
	return e.stream.Send(ev)
}

func (e *streamEvents) Progress(p protov1.Progress) {
	_ = e.send(&pluginv1.CallToolEvent{Event: &pluginv1.CallToolEvent_Progress{
		Progress: &pluginv1.Progress{Progress: p.Progress, Total: p.Total, Message: p.Message}}})
}

func (e *streamEvents) Log(l protov1.LogMessage) {
	_ = e.send(&pluginv1.CallToolEvent{Event: &pluginv1.CallToolEvent_Log{Log: logToPB(&l)}})
}

func (s *Server) CallTool(req *pluginv1.CallToolRequest, stream grpc.ServerStreamingServer[pluginv1.CallToolEvent]) error {
	events := &streamEvents{stream: stream}
	returned := s.watchOverrun(stream.Context(), req.GetName())
	res, err := s.callTool(stream.Context(), req, events)
	returned()
	if err != nil {
		if errors.Is(err, protov1.ErrNotFound) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return statusOf(err)
		}
		// A handler's error is the tool's failure, reported to the model as
		// such; it is also the plugin's or what it fronts, so the operator
		// sees it in the gateway's log, where an error result never shows.
		var logged panicError
		if !errors.As(err, &logged) {
			s.Logger.Error("tool failed", "tool", req.GetName(), "error", err)
		}
		res = &protov1.Result{IsError: true, Content: []protov1.Content{{Kind: protov1.KindText, Text: err.Error()}}}
	}
	if res == nil {
		res = &protov1.Result{}
	}
	return events.finish(&pluginv1.CallToolEvent{Event: &pluginv1.CallToolEvent_Result{Result: resultToPB(res)}})
}

// panicError is a handler's panic as the model is told of it; its stack is
// already in the log.
type panicError string

func (e panicError) Error() string { return string(e) }

func (s *Server) callTool(ctx context.Context, req *pluginv1.CallToolRequest, events *streamEvents) (res *protov1.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.Logger.Error("panic in tool", "tool", req.GetName(), "panic", r, "stack", string(debug.Stack()))
			res, err = nil, panicError(fmt.Sprintf("tool %q panicked: %v", req.GetName(), r))
		}
	}()
	call := &protov1.CallRequest{
		Name: req.GetName(), Arguments: raw(req.GetArgumentsJson()),
		Meta: raw(req.GetMetaJson()), WantProgress: req.GetWantProgress(),
	}
	if caps := req.GetClientCapabilities(); caps != nil && s.Broker != nil {
		peer := &remotePeer{caps: capsFromPB(caps), broker: s.Broker, id: req.GetCallbackBrokerId(),
			want: func() error {
				return events.send(&pluginv1.CallToolEvent{Event: &pluginv1.CallToolEvent_ClientWanted{ClientWanted: &pluginv1.ClientWanted{}}})
			}}
		defer peer.end()
		call.Peer = peer
	}
	return s.Backend.CallTool(ctx, call, events)
}

func (s *Server) ListResources(ctx context.Context, _ *pluginv1.ListResourcesRequest) (resp *pluginv1.ListResourcesResponse, err error) {
	defer s.guard("ListResources", &err)
	rs, err := s.Backend.ListResources(ctx)
	if err != nil {
		return nil, statusOf(err)
	}
	resp = &pluginv1.ListResourcesResponse{Resources: make([]*pluginv1.Resource, len(rs))}
	for i := range rs {
		resp.Resources[i] = resourceToPB(&rs[i])
	}
	return resp, nil
}

func (s *Server) ListResourceTemplates(ctx context.Context, _ *pluginv1.ListResourceTemplatesRequest) (resp *pluginv1.ListResourceTemplatesResponse, err error) {
	defer s.guard("ListResourceTemplates", &err)
	ts, err := s.Backend.ListResourceTemplates(ctx)
	if err != nil {
		return nil, statusOf(err)
	}
	resp = &pluginv1.ListResourceTemplatesResponse{Templates: make([]*pluginv1.ResourceTemplate, len(ts))}
	for i, t := range ts {
		resp.Templates[i] = templateToPB(t)
	}
	return resp, nil
}

func (s *Server) ReadResource(ctx context.Context, req *pluginv1.ReadResourceRequest) (resp *pluginv1.ReadResourceResponse, err error) {
	defer s.guard("ReadResource", &err)
	cs, err := s.Backend.ReadResource(ctx, req.GetUri())
	if err != nil {
		return nil, statusOf(err)
	}
	resp = &pluginv1.ReadResourceResponse{Contents: make([]*pluginv1.ResourceContents, len(cs))}
	for i := range cs {
		resp.Contents[i] = contentsToPB(&cs[i])
	}
	return resp, nil
}

func (s *Server) ListPrompts(ctx context.Context, _ *pluginv1.ListPromptsRequest) (resp *pluginv1.ListPromptsResponse, err error) {
	defer s.guard("ListPrompts", &err)
	ps, err := s.Backend.ListPrompts(ctx)
	if err != nil {
		return nil, statusOf(err)
	}
	resp = &pluginv1.ListPromptsResponse{Prompts: make([]*pluginv1.Prompt, len(ps))}
	for i, p := range ps {
		resp.Prompts[i] = promptToPB(p)
	}
	return resp, nil
}

func (s *Server) GetPrompt(ctx context.Context, req *pluginv1.GetPromptRequest) (resp *pluginv1.GetPromptResponse, err error) {
	defer s.guard("GetPrompt", &err)
	p, err := s.Backend.GetPrompt(ctx, req.GetName(), req.GetArguments())
	if err != nil {
		return nil, statusOf(err)
	}
	resp = &pluginv1.GetPromptResponse{Description: p.Description}
	for i := range p.Messages {
		resp.Messages = append(resp.Messages, &pluginv1.PromptMessage{
			Role: p.Messages[i].Role, Content: contentToPB(&p.Messages[i].Content)})
	}
	return resp, nil
}

func (s *Server) Watch(_ *pluginv1.WatchRequest, stream grpc.ServerStreamingServer[pluginv1.WatchEvent]) (err error) {
	defer s.guard("Watch", &err)
	var (
		mu   sync.Mutex
		done bool // a backend may emit after Watch returned; the stream is gone then
	)
	werr := s.Backend.Watch(stream.Context(), func(e protov1.Event) {
		if pb := eventToPB(e); pb != nil {
			mu.Lock()
			defer mu.Unlock()
			if !done {
				_ = stream.Send(pb)
			}
		}
	})
	mu.Lock()
	done = true
	mu.Unlock()
	return statusOf(werr)
}

// Health checks the backend itself when it can say more than "the process
// answers"; otherwise this answer is the proof.
func (s *Server) Health(ctx context.Context, _ *pluginv1.HealthRequest) (resp *pluginv1.HealthResponse, err error) {
	defer s.guard("Health", &err)
	if hc, ok := s.Backend.(protov1.HealthChecker); ok {
		if err := hc.Health(ctx); err != nil {
			return nil, statusOf(err)
		}
	}
	return &pluginv1.HealthResponse{}, nil
}

// RootsChanged passes on that a client's roots changed to a backend that
// wants to know.
func (s *Server) RootsChanged(ctx context.Context, _ *pluginv1.RootsChangedRequest) (resp *pluginv1.RootsChangedResponse, err error) {
	defer s.guard("RootsChanged", &err)
	if rw, ok := s.Backend.(protov1.RootsWatcher); ok {
		if err := rw.RootsChanged(ctx); err != nil {
			return nil, statusOf(err)
		}
	}
	return &pluginv1.RootsChangedResponse{}, nil
}

// Stop lets the backend end what it runs before the host ends the process.
func (s *Server) Stop(ctx context.Context, _ *pluginv1.StopRequest) (resp *pluginv1.StopResponse, err error) {
	defer s.guard("Stop", &err)
	if st, ok := s.Backend.(protov1.Stopper); ok {
		if err := st.Stop(ctx); err != nil {
			return nil, statusOf(err)
		}
	}
	return &pluginv1.StopResponse{}, nil
}
