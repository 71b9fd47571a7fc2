package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Prompts and resources are chosen by people (slash commands) and attached by
// applications; unlike tool schemas they cost a model nothing until picked.
// So besides the meta-tools, the gateway serves the plugins' prompts,
// resources and completions as MCP's own methods. The lists live in mcp-go's
// registry, refreshed from the sources whenever PromptsChanged or
// ResourcesChanged is called; mcp-go then tells every session the list
// changed through the sessions' notification channels.

// PageSize is how many prompts, resources or templates one page of a native
// list holds.
const PageSize = 100

// PromptSource serves prompts/list and prompts/get.
type PromptSource interface {
	// ListPrompts returns every prompt under the name clients call it by.
	ListPrompts() []protov1.Prompt
	GetPrompt(ctx context.Context, name string, args map[string]string) (*protov1.PromptResult, error)
	// UnknownPrompt says that no prompt is named name and which one the
	// client probably meant; nil when the source has it after all.
	UnknownPrompt(name string) error
}

// ResourceSource serves resources/list, resources/templates/list,
// resources/read and the subscriptions of resources it routes.
type ResourceSource interface {
	ListResources() ([]protov1.Resource, []protov1.ResourceTemplate)
	ReadResource(ctx context.Context, uri string) ([]protov1.ResourceContents, error)
	// Routes reports whether uri belongs to the source, listed or matched by
	// a template.
	Routes(uri string) bool
	// UnknownResource says that the source does not serve uri and which
	// resource the client probably meant; nil when it serves it after all.
	UnknownResource(uri string) error
	// SubscribeResource is called when the first session subscribes to uri,
	// UnsubscribeResource when the last one leaves (a 2026-07-28 listen
	// stream counts as a session while it lasts); updates come back through
	// ResourceUpdated.
	SubscribeResource(ctx context.Context, uri string) error
	UnsubscribeResource(ctx context.Context, uri string) error
}

// Completer serves completion/complete: req names a prompt by the name
// clients call it by, or a resource template as listed.
type Completer interface {
	Complete(ctx context.Context, req *protov1.CompleteRequest) (*protov1.Completion, error)
}

// native is the state of the natively served lists.
type native struct {
	mu        sync.Mutex // serializes refreshes
	prompts   map[string]mcp.Prompt
	resources map[string]mcp.Resource
	templates map[string]mcp.ResourceTemplate

	subsMu sync.Mutex
	// subs holds the plugin resources some session subscribes to;
	// bySession lists each session's, so an ended session releases them.
	subs      map[string]*watch
	bySession map[string]map[string]bool
}

// nativeOptions are the mcp-go options of the native lists.
func (s *Server) nativeOptions() []server.ServerOption {
	var opts []server.ServerOption
	if s.opts.Prompts != nil || s.opts.PluginResources != nil {
		opts = append(opts, server.WithPaginationLimit(PageSize))
	}
	if s.opts.Prompts != nil {
		opts = append(opts, server.WithPromptCapabilities(true))
	}
	switch {
	case s.opts.PluginResources != nil:
		opts = append(opts, server.WithResourceCapabilities(true, true))
	case len(s.opts.Resources) > 0:
		opts = append(opts, server.WithResourceCapabilities(true, false))
	}
	if s.opts.Completions != nil {
		c := completions{s}
		opts = append(opts, server.WithCompletions(),
			server.WithPromptCompletionProvider(c), server.WithResourceCompletionProvider(c))
	}
	return opts
}

// startNative registers the first lists and the hooks that carry resource
// subscriptions to the plugins. New calls it before anything is served.
func (s *Server) startNative() {
	s.native = native{prompts: map[string]mcp.Prompt{}, resources: map[string]mcp.Resource{},
		templates: map[string]mcp.ResourceTemplate{}, subs: map[string]*watch{}, bySession: map[string]map[string]bool{}}
	if s.opts.PluginResources != nil {
		hooks := s.mcp.GetHooks()
		if hooks == nil {
			hooks = &server.Hooks{}
			server.WithHooks(hooks)(s.mcp)
		}
		hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
			if se, ok := server.ClientSessionFromContext(ctx).(*session); ok {
				if err := s.subscribed(ctx, se.id, req.Params.URI); err != nil {
					s.log.Warn("resource subscription not passed to its plugin; updates may not come", "uri", req.Params.URI, "error", err)
				}
			}
		})
		hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest) {
			if se, ok := server.ClientSessionFromContext(ctx).(*session); ok {
				s.listenResources(ctx, se, req)
			}
		})
		hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
			if se, ok := server.ClientSessionFromContext(ctx).(*session); ok {
				s.unsubscribed(ctx, se.id, req.Params.URI)
			}
		})
		hooks.AddOnUnregisterSession(func(ctx context.Context, cs server.ClientSession) {
			s.sessionEnded(ctx, cs.SessionID())
		})
	}
	s.PromptsChanged()
	s.ResourcesChanged()
}

// unknownNative returns the prompt name or resource URI a request asks for
// when the natively served lists do not hold it (yet), and "" otherwise.
func (s *Server) unknownNative(env *envelope) string {
	p := env.callParams()
	prompt := func(name string) string {
		if s.opts.Prompts == nil || name == "" {
			return ""
		}
		s.native.mu.Lock()
		_, ok := s.native.prompts[name]
		s.native.mu.Unlock()
		if ok {
			return ""
		}
		return name
	}
	resource := func(uri string) string {
		if s.opts.PluginResources == nil || uri == "" || s.resources[uri] || s.opts.PluginResources.Routes(uri) {
			return ""
		}
		return uri
	}
	switch mcp.MCPMethod(env.Method) {
	case mcp.MethodPromptsGet:
		return prompt(p.Name)
	case mcp.MethodResourcesRead, mcp.MethodResourcesSubscribe:
		return resource(p.URI)
	case mcp.MethodCompletionComplete:
		if p.Ref.Type == "ref/prompt" {
			return prompt(p.Ref.Name)
		}
	}
	return ""
}

// PromptsChanged reads the prompt list again; sessions hear
// notifications/prompts/list_changed when it differs.
func (s *Server) PromptsChanged() {
	src := s.opts.Prompts
	if src == nil {
		return
	}
	s.native.mu.Lock()
	defer s.native.mu.Unlock()
	next := map[string]mcp.Prompt{}
	var add []server.ServerPrompt
	for _, p := range src.ListPrompts() {
		def := promptDefinition(p)
		next[def.Name] = def
		if old, ok := s.native.prompts[def.Name]; !ok || !reflect.DeepEqual(old, def) {
			add = append(add, server.ServerPrompt{Prompt: def, Handler: s.promptHandler(def.Name)})
		}
	}
	var gone []string
	for name := range s.native.prompts {
		if _, ok := next[name]; !ok {
			gone = append(gone, name)
		}
	}
	s.native.prompts = next
	if len(add) > 0 {
		s.mcp.AddPrompts(add...)
	}
	if len(gone) > 0 {
		s.mcp.DeletePrompts(gone...)
	}
}

// ResourcesChanged reads the plugin resource and template lists again;
// sessions hear notifications/resources/list_changed when they differ. The
// gateway's own resources (Options.Resources) win over a plugin's of the same
// URI.
func (s *Server) ResourcesChanged() {
	src := s.opts.PluginResources
	if src == nil {
		return
	}
	s.native.mu.Lock()
	defer s.native.mu.Unlock()
	resources, templates := src.ListResources()
	nextR := map[string]mcp.Resource{}
	var addR []server.ServerResource
	for _, r := range resources {
		if s.resources[r.URI] {
			s.log.Warn("plugin resource hidden by the gateway's own of the same URI", "uri", r.URI)
			continue
		}
		def := resourceDefinition(r)
		nextR[r.URI] = def
		if old, ok := s.native.resources[r.URI]; !ok || !reflect.DeepEqual(old, def) {
			addR = append(addR, server.ServerResource{Resource: def, Handler: s.pluginResourceHandler})
		}
	}
	nextT := map[string]mcp.ResourceTemplate{}
	var addT []server.ServerResourceTemplate
	for _, t := range templates {
		def, err := templateDefinition(t)
		if err != nil {
			s.log.Warn("resource template not served", "uri_template", t.URITemplate, "error", err)
			continue
		}
		nextT[t.URITemplate] = def
		if old, ok := s.native.templates[t.URITemplate]; !ok || !sameTemplate(old, def) {
			addT = append(addT, server.ServerResourceTemplate{Template: def, Handler: s.pluginResourceHandler})
		}
	}
	var goneR []string
	for uri := range s.native.resources {
		if _, ok := nextR[uri]; !ok {
			goneR = append(goneR, uri)
		}
	}
	var goneT []string
	for raw := range s.native.templates {
		if _, ok := nextT[raw]; !ok {
			goneT = append(goneT, raw)
		}
	}
	s.native.resources, s.native.templates = nextR, nextT
	if len(addR) > 0 {
		s.mcp.AddResources(addR...)
	}
	if len(addT) > 0 {
		s.mcp.AddResourceTemplates(addT...)
	}
	if len(goneR) > 0 {
		s.mcp.DeleteResources(goneR...)
	}
	if len(goneT) > 0 {
		s.deleteTemplates(goneT)
	}
}

// deleteTemplates drops templates: mcp-go has no call for it, so the whole
// set is replaced, which also tells the sessions.
func (s *Server) deleteTemplates([]string) {
	keep := make([]server.ServerResourceTemplate, 0, len(s.native.templates))
	for _, def := range s.native.templates {
		keep = append(keep, server.ServerResourceTemplate{Template: def, Handler: s.pluginResourceHandler})
	}
	s.mcp.SetResourceTemplates(keep...)
}

func (s *Server) promptHandler(name string) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		pr, err := s.opts.Prompts.GetPrompt(ctx, name, req.Params.Arguments)
		if err != nil {
			markReadError(ctx, err)
			return nil, err
		}
		return toGetPromptResult(pr)
	}
}

func (s *Server) pluginResourceHandler(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	list, err := s.opts.PluginResources.ReadResource(ctx, req.Params.URI)
	if err != nil {
		markReadError(ctx, err)
		return nil, err
	}
	return toMCPResourceContents(list)
}

// errNoArgumentName is a completion/complete without the argument to
// complete.
var errNoArgumentName error = badParams("completion/complete: argument.name is required")

// badParams is a request's mistake, named in its own words.
type badParams string

func (e badParams) Error() string { return string(e) }

// Unwrap classifies the error as the client's.
func (e badParams) Unwrap() error { return protov1.ErrInvalidArgument }

// completions route completion/complete to Options.Completions.
type completions struct{ s *Server }

func (c completions) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return c.complete(ctx, &protov1.CompleteRequest{PromptName: name, Argument: arg.Name, Value: arg.Value, Context: cc.Arguments})
}

func (c completions) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	return c.complete(ctx, &protov1.CompleteRequest{ResourceTemplate: uri, Argument: arg.Name, Value: arg.Value, Context: cc.Arguments})
}

func (c completions) complete(ctx context.Context, req *protov1.CompleteRequest) (*mcp.Completion, error) {
	if req.Argument == "" {
		err := errNoArgumentName
		markReadError(ctx, err)
		return nil, err
	}
	out, err := c.s.opts.Completions.Complete(ctx, req)
	if err != nil {
		markReadError(ctx, err)
		return nil, err
	}
	values := out.Values
	hasMore := out.HasMore
	if len(values) > protov1.MaxCompletionValues {
		values, hasMore = values[:protov1.MaxCompletionValues], true
	}
	if values == nil {
		values = []string{}
	}
	return &mcp.Completion{Values: values, Total: int(out.Total), HasMore: hasMore}, nil
}

func promptDefinition(p protov1.Prompt) mcp.Prompt {
	def := mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		def.Arguments = append(def.Arguments, mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	if meta, err := metaFromRaw(p.Meta); err == nil {
		def.Meta = meta
	}
	return def
}

func templateDefinition(t protov1.ResourceTemplate) (mcp.ResourceTemplate, error) {
	var tmpl mcp.URITemplate
	raw, _ := json.Marshal(t.URITemplate)
	if err := tmpl.UnmarshalJSON(raw); err != nil {
		return mcp.ResourceTemplate{}, fmt.Errorf("not an RFC 6570 URI template: %w", err)
	}
	def := mcp.ResourceTemplate{URITemplate: &tmpl, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType}
	if present(t.Annotations) {
		var a mcp.Annotations
		if json.Unmarshal(t.Annotations, &a) == nil {
			def.Annotations = &a
		}
	}
	if meta, err := metaFromRaw(t.Meta); err == nil {
		def.Meta = meta
	}
	return def, nil
}

// sameTemplate compares two template definitions by their JSON, as the
// parsed URI templates hold state reflect cannot compare.
func sameTemplate(a, b mcp.ResourceTemplate) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// toGetPromptResult converts a rendered prompt; each message's content goes
// out as the plugin sent it.
func toGetPromptResult(pr *protov1.PromptResult) (*mcp.GetPromptResult, error) {
	if pr == nil {
		return nil, errors.New("the plugin rendered no prompt")
	}
	out := &mcp.GetPromptResult{Description: pr.Description, Messages: make([]mcp.PromptMessage, 0, len(pr.Messages))}
	for i, m := range pr.Messages {
		raw, err := contentJSON(m.Content)
		if err != nil {
			return nil, fmt.Errorf("message %d (%s): %w", i, m.Content.Kind, err)
		}
		out.Messages = append(out.Messages, mcp.PromptMessage{Role: mcp.Role(m.Role), Content: wireContent{raw: raw}})
	}
	return out, nil
}
