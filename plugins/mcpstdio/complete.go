package mcpstdio

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

var (
	_ protov1.Completer          = (*Backend)(nil)
	_ protov1.ResourceSubscriber = (*Backend)(nil)
)

// Complete passes completion/complete to the server. A server that declared
// no completions has no suggestions.
func (b *Backend) Complete(ctx context.Context, req *protov1.CompleteRequest) (*protov1.Completion, error) {
	s, err := b.session()
	if err != nil {
		return nil, err
	}
	if s.info.Capabilities.Completions == nil {
		return &protov1.Completion{}, nil
	}
	ref := map[string]any{"type": "ref/prompt", "name": req.PromptName}
	what := "prompt " + req.PromptName
	if req.ResourceTemplate != "" {
		ref = map[string]any{"type": "ref/resource", "uri": req.ResourceTemplate}
		what = "resource template " + req.ResourceTemplate
	}
	params := map[string]any{"ref": ref, "argument": map[string]any{"name": req.Argument, "value": req.Value}}
	if len(req.Context) > 0 {
		params["context"] = map[string]any{"arguments": req.Context}
	}
	raw, err := s.request(ctx, string(mcp.MethodCompletionComplete), params)
	if err != nil {
		return nil, err
	}
	var w struct {
		Completion struct {
			Values  []string `json:"values"`
			Total   int64    `json:"total"`
			HasMore bool     `json:"hasMore"`
		} `json:"completion"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("completion/complete of %s: decode: %w", what, err)
	}
	return &protov1.Completion{Values: w.Completion.Values, Total: w.Completion.Total, HasMore: w.Completion.HasMore}, nil
}

// SubscribeResource subscribes at the server, which then sends
// notifications/resources/updated for uri; they reach the Watch streams.
func (b *Backend) SubscribeResource(ctx context.Context, uri string) error {
	return b.subscription(ctx, string(mcp.MethodResourcesSubscribe), uri)
}

// UnsubscribeResource ends the server's updates for uri.
func (b *Backend) UnsubscribeResource(ctx context.Context, uri string) error {
	return b.subscription(ctx, string(mcp.MethodResourcesUnsubscribe), uri)
}

func (b *Backend) subscription(ctx context.Context, method, uri string) error {
	s, err := b.session()
	if err != nil {
		return err
	}
	if caps := s.info.Capabilities.Resources; caps == nil || !caps.Subscribe {
		return fmt.Errorf("%s %s: the server does not offer resource subscriptions: %w", method, uri, ErrUnsupportedByServer)
	}
	_, err = s.request(ctx, method, map[string]any{"uri": uri})
	return err
}
