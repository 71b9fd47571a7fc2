package wire

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolgate/toolgate/sdk/internal/pluginv1"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Complete serves completion when the backend is a Completer; a backend that
// is not answers Unimplemented, as a plugin of an older minor does.
func (s *Server) Complete(ctx context.Context, req *pluginv1.CompleteRequest) (resp *pluginv1.CompleteResponse, err error) {
	defer s.guard("Complete", &err)
	c, ok := s.Backend.(protov1.Completer)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this plugin does not complete arguments")
	}
	out, err := c.Complete(ctx, &protov1.CompleteRequest{
		PromptName: req.GetPromptName(), ResourceTemplate: req.GetResourceTemplate(),
		Argument: req.GetArgumentName(), Value: req.GetArgumentValue(), Context: req.GetContextArguments(),
	})
	if err != nil {
		return nil, statusOf(err)
	}
	resp = &pluginv1.CompleteResponse{}
	if out != nil {
		values := out.Values
		if len(values) > protov1.MaxCompletionValues {
			values, out.HasMore = values[:protov1.MaxCompletionValues], true
		}
		resp.Values, resp.Total, resp.HasMore = values, out.Total, out.HasMore
	}
	return resp, nil
}

// SubscribeResource tells a ResourceSubscriber someone watches uri.
func (s *Server) SubscribeResource(ctx context.Context, req *pluginv1.SubscribeResourceRequest) (resp *pluginv1.SubscribeResourceResponse, err error) {
	defer s.guard("SubscribeResource", &err)
	rs, ok := s.Backend.(protov1.ResourceSubscriber)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this plugin takes no resource subscriptions")
	}
	if err := rs.SubscribeResource(ctx, req.GetUri()); err != nil {
		return nil, statusOf(err)
	}
	return &pluginv1.SubscribeResourceResponse{}, nil
}

// UnsubscribeResource tells a ResourceSubscriber nobody watches uri any more.
func (s *Server) UnsubscribeResource(ctx context.Context, req *pluginv1.UnsubscribeResourceRequest) (resp *pluginv1.UnsubscribeResourceResponse, err error) {
	defer s.guard("UnsubscribeResource", &err)
	rs, ok := s.Backend.(protov1.ResourceSubscriber)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this plugin takes no resource subscriptions")
	}
	if err := rs.UnsubscribeResource(ctx, req.GetUri()); err != nil {
		return nil, statusOf(err)
	}
	return &pluginv1.UnsubscribeResourceResponse{}, nil
}

var (
	_ protov1.Completer          = (*Client)(nil)
	_ protov1.ResourceSubscriber = (*Client)(nil)
)

// Complete asks the plugin for completions; a plugin that does not serve
// them fails with an error wrapping ErrUnsupported.
func (c *Client) Complete(ctx context.Context, req *protov1.CompleteRequest) (*protov1.Completion, error) {
	pb := &pluginv1.CompleteRequest{ArgumentName: req.Argument, ArgumentValue: req.Value, ContextArguments: req.Context}
	if req.ResourceTemplate != "" {
		pb.Ref = &pluginv1.CompleteRequest_ResourceTemplate{ResourceTemplate: req.ResourceTemplate}
	} else {
		pb.Ref = &pluginv1.CompleteRequest_PromptName{PromptName: req.PromptName}
	}
	r, err := c.RPC.Complete(ctx, pb)
	if err != nil {
		return nil, unsupported(err)
	}
	return &protov1.Completion{Values: r.GetValues(), Total: r.GetTotal(), HasMore: r.GetHasMore()}, nil
}

// SubscribeResource asks the plugin to report changes of uri on Watch.
func (c *Client) SubscribeResource(ctx context.Context, uri string) error {
	_, err := c.RPC.SubscribeResource(ctx, &pluginv1.SubscribeResourceRequest{Uri: uri})
	return unsupported(err)
}

// UnsubscribeResource ends SubscribeResource.
func (c *Client) UnsubscribeResource(ctx context.Context, uri string) error {
	_, err := c.RPC.UnsubscribeResource(ctx, &pluginv1.UnsubscribeResourceRequest{Uri: uri})
	return unsupported(err)
}
