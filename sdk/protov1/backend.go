package protov1

import (
	"context"
	"encoding/json"
)

// Backend is everything a plugin serves. The SDK's server turns it into the gRPC
// service; the host's client implements it on the other side of the process
// boundary.
//
// CallTool returns an error only when no answer could be had (the plugin is gone,
// the call was cancelled); a tool that failed answers a Result with IsError.
type Backend interface {
	GetInfo(ctx context.Context) (Info, error)
	Configure(ctx context.Context, config json.RawMessage) error
	ListTools(ctx context.Context) ([]Tool, error)
	CallTool(ctx context.Context, req *CallRequest, events CallEvents) (*Result, error)
	ListResources(ctx context.Context) ([]Resource, error)
	ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error)
	ReadResource(ctx context.Context, uri string) ([]ResourceContents, error)
	ListPrompts(ctx context.Context) ([]Prompt, error)
	GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error)
	// Watch sends change notices to emit until ctx ends or the plugin stops.
	Watch(ctx context.Context, emit func(Event)) error
}

// NoResources, NoPrompts and NoWatch can be embedded by backends that serve only
// tools, so they need not write the empty methods themselves.
type NoResources struct{}

func (NoResources) ListResources(context.Context) ([]Resource, error) { return nil, nil }
func (NoResources) ListResourceTemplates(context.Context) ([]ResourceTemplate, error) {
	return nil, nil
}
func (NoResources) ReadResource(_ context.Context, uri string) ([]ResourceContents, error) {
	return nil, NotFoundf("resource %q", uri)
}

type NoPrompts struct{}

func (NoPrompts) ListPrompts(context.Context) ([]Prompt, error) { return nil, nil }
func (NoPrompts) GetPrompt(_ context.Context, name string, _ map[string]string) (*PromptResult, error) {
	return nil, NotFoundf("prompt %q", name)
}

type NoWatch struct{}

func (NoWatch) Watch(ctx context.Context, _ func(Event)) error {
	<-ctx.Done()
	return nil
}

// HealthChecker is implemented by a Backend whose health is more than its
// process answering: one that fronts another server checks that server here,
// within ctx. A Backend without it counts as healthy while its process serves.
type HealthChecker interface {
	Health(ctx context.Context) error
}

// Stopper is implemented by a Backend that runs something which must be ended
// politely (a child process that flushes state on exit) before the host ends
// the plugin process. Stop should be done by the time ctx ends.
type Stopper interface {
	Stop(ctx context.Context) error
}

// RootsWatcher is implemented by a Backend that wants to know when a client's
// roots changed (MCP notifications/roots/list_changed): mcp-stdio tells its
// server, which asks again during the next call. Only plugins that declare
// ClientCallbacks are told.
type RootsWatcher interface {
	RootsChanged(ctx context.Context) error
}
