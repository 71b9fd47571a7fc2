package protov1

import "context"

// CompleteRequest asks for values of one prompt argument or resource
// template variable (MCP completion/complete). Exactly one of PromptName and
// ResourceTemplate is set, each as the plugin itself lists it.
type CompleteRequest struct {
	PromptName       string
	ResourceTemplate string
	// Argument is the argument or template variable being completed.
	Argument string
	// Value is what the user has typed so far.
	Value string
	// Context holds the values already given for the other arguments.
	Context map[string]string
}

// Completion is a list of suggested values, best first. MCP allows at most
// MaxCompletionValues in one answer.
type Completion struct {
	Values []string
	// Total is how many values there are in all; 0 when unknown.
	Total   int64
	HasMore bool
}

// MaxCompletionValues is the most values one completion answer may carry.
const MaxCompletionValues = 100

// Completer is implemented by a Backend that completes prompt arguments and
// resource template variables; it says so with Capabilities.Completions. A
// prompt or template it has no suggestions for answers an empty Completion.
type Completer interface {
	Complete(ctx context.Context, req *CompleteRequest) (*Completion, error)
}

// ResourceSubscriber is implemented by a Backend that must be told which
// resources someone watches before it sends EventResourceUpdated for them
// (an MCP server behind the plugin, which sends updates only for resources
// subscribed at it); it says so with Capabilities.ResourceSubscribe. The host
// subscribes once per URI, however many clients watch it, and again after
// the plugin restarts.
type ResourceSubscriber interface {
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(ctx context.Context, uri string) error
}
