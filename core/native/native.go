// Package native serves every plugin's prompts, resources and completions as
// MCP's own methods (prompts/list, resources/read, completion/complete, ...),
// beside the meta-tools. Prompts are chosen by people and resources attached
// by applications, so they belong where clients look for them; only tools,
// whose schemas fill a model's context, are disclosed progressively.
//
// A Library answers from the catalog, so a lazy plugin's prompts and
// resources are listed from its stored manifest before it ever runs, and
// routes each request to the plugin that serves it, starting it if need be.
// It knows no transport: the gateway calls it.
package native

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Library routes native MCP requests to the plugins.
type Library struct {
	catalog *catalog.Catalog
	plugins *supervisor.Manager
	timeout func(plugin string) time.Duration
	log     hclog.Logger

	mu sync.Mutex
	// watched holds, per plugin, the resources clients are subscribed to,
	// so a plugin that restarts is asked for their updates again.
	watched map[string]map[string]bool
}

// New returns a Library over the catalog and the plugins' supervisors;
// callTimeout bounds each request to a plugin.
func New(cat *catalog.Catalog, plugins *supervisor.Manager, callTimeout func(plugin string) time.Duration, logger hclog.Logger) *Library {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &Library{catalog: cat, plugins: plugins, timeout: callTimeout, log: logger, watched: map[string]map[string]bool{}}
}

// ListPrompts lists every plugin's prompts under their exposed names.
func (l *Library) ListPrompts() []protov1.Prompt {
	ps := l.catalog.Prompts("")
	out := make([]protov1.Prompt, len(ps))
	for i, p := range ps {
		out[i] = p.Def
		out[i].Name = p.ID
	}
	return out
}

// GetPrompt renders a prompt at its plugin.
func (l *Library) GetPrompt(ctx context.Context, name string, args map[string]string) (*protov1.PromptResult, error) {
	p, ok := l.catalog.Prompt(name)
	if !ok {
		return nil, l.unknownPrompt(name)
	}
	var missing []string
	for _, a := range p.Def.Arguments {
		if _, given := args[a.Name]; a.Required && !given {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, &ArgumentError{Prompt: name, Missing: missing}
	}
	var pr *protov1.PromptResult
	err := l.use(ctx, p.Plugin, func(ctx context.Context, b protov1.Backend) error {
		var err error
		pr, err = b.GetPrompt(ctx, p.Def.Name, args)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get prompt %s from plugin %q: %w", name, p.Plugin, clip.Message(err))
	}
	return pr, nil
}

// UnknownPrompt says that no plugin serves a prompt of that name, and which
// one the client probably meant; nil when the catalog has it after all.
func (l *Library) UnknownPrompt(name string) error {
	if _, ok := l.catalog.Prompt(name); ok {
		return nil
	}
	return l.unknownPrompt(name)
}

func (l *Library) unknownPrompt(name string) error {
	return &UnknownError{What: "prompt", Name: name, Meant: l.catalog.PromptsMeant(name), Listed: "prompts/list", Kind: protov1.ErrNotFound}
}

// UnknownError is a prompt, resource or resource template no plugin serves.
type UnknownError struct {
	// Field is the request field that names it ("ref"), if any.
	Field, What, Name string
	// Meant are the names the client probably meant (catalog.PromptsMeant).
	Meant []string
	// Listed says which request lists what there is.
	Listed string
	// Kind is protov1.ErrNotFound for a request of the thing itself,
	// protov1.ErrInvalidArgument for one that refers to it (a completion).
	Kind error
}

func (e *UnknownError) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	fmt.Fprintf(&b, "unknown %s %q; ", e.What, clip.Name(e.Name))
	var quoted []string
	for _, m := range e.Meant {
		if m != "" {
			quoted = append(quoted, fmt.Sprintf("%q", m))
		}
	}
	if len(quoted) > 0 {
		b.WriteString("did you mean " + strings.Join(quoted, " or ") + "? ")
	}
	b.WriteString(e.Listed + " shows what there is")
	return b.String()
}

// Unwrap classifies the error.
func (e *UnknownError) Unwrap() error { return e.Kind }

// ArgumentError is a prompts/get without the arguments the prompt requires.
type ArgumentError struct {
	Prompt  string
	Missing []string
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("prompt %s: missing required argument(s) %q", e.Prompt, e.Missing)
}

// Unwrap classifies the error as a bad request.
func (e *ArgumentError) Unwrap() error { return protov1.ErrInvalidArgument }

// ListResources lists every plugin's resources and templates, by URI.
func (l *Library) ListResources() ([]protov1.Resource, []protov1.ResourceTemplate) {
	rs, ts := l.catalog.Resources("")
	resources := make([]protov1.Resource, len(rs))
	for i, r := range rs {
		resources[i] = r.Def
	}
	templates := make([]protov1.ResourceTemplate, len(ts))
	for i, t := range ts {
		templates[i] = t.Def
	}
	return resources, templates
}

// Routes reports whether some plugin serves uri.
func (l *Library) Routes(uri string) bool {
	_, _, ok := l.catalog.RouteResource(uri)
	return ok
}

// ReadResource reads uri at the plugin that serves it.
func (l *Library) ReadResource(ctx context.Context, uri string) ([]protov1.ResourceContents, error) {
	plugin, _, ok := l.catalog.RouteResource(uri)
	if !ok {
		return nil, l.unknownResource(uri)
	}
	var out []protov1.ResourceContents
	err := l.use(ctx, plugin, func(ctx context.Context, b protov1.Backend) error {
		var err error
		out, err = b.ReadResource(ctx, uri)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read resource %s from plugin %q: %w", clip.Name(uri), plugin, clip.Message(err))
	}
	return out, nil
}

// UnknownResource says that no plugin serves uri, and which resource the
// client probably meant; nil when some plugin serves it after all.
func (l *Library) UnknownResource(uri string) error {
	if l.Routes(uri) {
		return nil
	}
	return l.unknownResource(uri)
}

func (l *Library) unknownResource(uri string) error {
	return &UnknownError{What: "resource", Name: uri, Meant: []string{l.catalog.ResourceMeant(uri)},
		Listed: "resources/list (or resources/templates/list)", Kind: protov1.ErrNotFound}
}

// SubscribeResource records that clients watch uri and, for a plugin that
// must be told (an MCP server behind it), subscribes there.
func (l *Library) SubscribeResource(ctx context.Context, uri string) error {
	plugin, _, ok := l.catalog.RouteResource(uri)
	if !ok {
		return l.unknownResource(uri)
	}
	l.mu.Lock()
	if l.watched[plugin] == nil {
		l.watched[plugin] = map[string]bool{}
	}
	l.watched[plugin][uri] = true
	l.mu.Unlock()
	if !l.capable(plugin, func(c protov1.Capabilities) bool { return c.ResourceSubscribe }) {
		return nil
	}
	return l.use(ctx, plugin, func(ctx context.Context, b protov1.Backend) error {
		return subscribe(ctx, b, uri, true)
	})
}

// UnsubscribeResource forgets uri and tells a running plugin; a plugin that
// is not running is not started for it.
func (l *Library) UnsubscribeResource(ctx context.Context, uri string) error {
	plugin, _, ok := l.catalog.RouteResource(uri)
	if !ok {
		return nil
	}
	l.mu.Lock()
	delete(l.watched[plugin], uri)
	l.mu.Unlock()
	sup, ok := l.plugins.Get(plugin)
	if !ok || !l.capable(plugin, func(c protov1.Capabilities) bool { return c.ResourceSubscribe }) {
		return nil
	}
	_, err := sup.UseRunning(func(b protov1.Backend) error { return subscribe(ctx, b, uri, false) })
	return err
}

// Resubscribe asks a plugin that (re)started for the updates of the
// resources clients watch; its earlier process took their subscriptions
// with it.
func (l *Library) Resubscribe(ctx context.Context, plugin string) {
	l.mu.Lock()
	uris := make([]string, 0, len(l.watched[plugin]))
	for uri := range l.watched[plugin] {
		uris = append(uris, uri)
	}
	l.mu.Unlock()
	if len(uris) == 0 || !l.capable(plugin, func(c protov1.Capabilities) bool { return c.ResourceSubscribe }) {
		return
	}
	sort.Strings(uris)
	for _, uri := range uris {
		err := l.use(ctx, plugin, func(ctx context.Context, b protov1.Backend) error { return subscribe(ctx, b, uri, true) })
		if err != nil {
			l.log.Warn("resource subscription not renewed after the plugin started", "plugin", plugin, "uri", uri, "error", err)
		}
	}
}

func subscribe(ctx context.Context, b protov1.Backend, uri string, on bool) error {
	rs, ok := b.(protov1.ResourceSubscriber)
	if !ok {
		return nil
	}
	if on {
		return rs.SubscribeResource(ctx, uri)
	}
	return rs.UnsubscribeResource(ctx, uri)
}

// Complete asks the plugin of the prompt or template for suggestions. A
// plugin that does not complete, or a listed resource (which has no
// arguments), has none: an empty list says there is nothing to suggest. A
// ref to a prompt or template nobody serves is the client's mistake, and
// the error says which one it probably meant.
func (l *Library) Complete(ctx context.Context, req *protov1.CompleteRequest) (*protov1.Completion, error) {
	fwd := *req
	var plugin, what string
	if req.ResourceTemplate != "" {
		t, ok := l.catalog.Template(req.ResourceTemplate)
		if !ok {
			if _, r, ok := l.catalog.RouteResource(req.ResourceTemplate); ok && r != nil {
				return &protov1.Completion{}, nil
			}
			return nil, &UnknownError{Field: "ref", What: "resource template", Name: req.ResourceTemplate,
				Meant: []string{l.catalog.TemplateMeant(req.ResourceTemplate)}, Listed: "resources/templates/list", Kind: protov1.ErrInvalidArgument}
		}
		plugin, what = t.Plugin, "resource template "+req.ResourceTemplate
	} else {
		p, ok := l.catalog.Prompt(req.PromptName)
		if !ok {
			return nil, &UnknownError{Field: "ref", What: "prompt", Name: req.PromptName,
				Meant: l.catalog.PromptsMeant(req.PromptName), Listed: "prompts/list", Kind: protov1.ErrInvalidArgument}
		}
		plugin, what = p.Plugin, "prompt "+req.PromptName
		fwd.PromptName = p.Def.Name
	}
	if !l.capable(plugin, func(c protov1.Capabilities) bool { return c.Completions }) {
		return &protov1.Completion{}, nil
	}
	var out *protov1.Completion
	err := l.use(ctx, plugin, func(ctx context.Context, b protov1.Backend) error {
		c, ok := b.(protov1.Completer)
		if !ok {
			return pluginhost.ErrUnsupported
		}
		var err error
		out, err = c.Complete(ctx, &fwd)
		return err
	})
	switch {
	case errors.Is(err, pluginhost.ErrUnsupported):
		return &protov1.Completion{}, nil
	case err != nil:
		return nil, fmt.Errorf("complete argument %q of %s at plugin %q: %w", req.Argument, what, plugin, err)
	case out == nil:
		return &protov1.Completion{}, nil
	}
	return out, nil
}

// capable reads a capability from the plugin's manifest: the running
// plugin's, or the stored one of a lazy plugin.
func (l *Library) capable(plugin string, has func(protov1.Capabilities) bool) bool {
	info, ok := l.catalog.Info(plugin)
	return ok && has(info.Capabilities)
}

// use runs f on the plugin within its call timeout, starting it when lazy.
func (l *Library) use(ctx context.Context, plugin string, f func(context.Context, protov1.Backend) error) error {
	sup, ok := l.plugins.Get(plugin)
	if !ok {
		return fmt.Errorf("plugin %q is not configured", plugin)
	}
	if l.timeout != nil {
		if d := l.timeout(plugin); d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
	}
	return sup.Use(ctx, func(b protov1.Backend) error { return f(ctx, b) })
}
