// Package plugin is what a toolgate plugin author imports: describe the plugin as
// a value, hand it to Serve, and the SDK speaks the protocol.
//
//	func main() {
//		plugin.Serve(&plugin.Plugin{
//			Name:    "hello",
//			Version: "1.0.0",
//			Tools: []plugin.Tool{
//				plugin.NewTool("greet", "Greet someone by name.",
//					func(ctx context.Context, call *plugin.Call, in struct {
//						Name string `json:"name" description:"who to greet"`
//					}) (*plugin.Result, error) {
//						return plugin.Text("Hello, " + in.Name + "!"), nil
//					}),
//			},
//		})
//	}
package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/toolgate/toolgate/sdk/internal/similar"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// The protocol's value types, so an author needs only this package.
type (
	Result           = protov1.Result
	Content          = protov1.Content
	ResourceContents = protov1.ResourceContents
	PromptResult     = protov1.PromptResult
	PromptMessage    = protov1.PromptMessage
	PromptArgument   = protov1.PromptArgument
	FieldError       = protov1.FieldError
	ConfigError      = protov1.ConfigError
	CompleteRequest  = protov1.CompleteRequest
	Completion       = protov1.Completion
)

// Plugin is a declarative plugin: its tools, resources and prompts, and how it
// takes its configuration.
type Plugin struct {
	Name    string
	Version string

	Tools     []Tool
	Resources []Resource
	// ResourceTemplates serve families of resources by URI template; a URI
	// listed in Resources is read there first.
	ResourceTemplates []ResourceTemplate
	Prompts           []Prompt

	// Config takes the plugin's `config {}` block as a struct (NewConfig) and
	// describes it, so the gateway checks the operator's settings before the
	// plugin runs.
	Config *Config
	// Configure receives the config block as raw JSON before any call, for a
	// plugin whose settings no struct describes; the gateway then cannot check
	// them ahead. Return a *ConfigError (DecodeConfig does) so the operator is
	// shown the line of the field at fault. With neither Config nor Configure
	// the plugin takes no configuration.
	Configure func(ctx context.Context, config json.RawMessage) error

	// Health, when set, is the plugin's answer to the host's periodic health
	// ping: return an error when what the plugin fronts (a server, a
	// connection) no longer answers, and the host restarts the plugin after a
	// few misses. It must answer within ctx. Nil means the plugin is healthy
	// while its process answers.
	Health func(ctx context.Context) error

	// RootsChanged, when set, is called when a client's roots changed (MCP
	// notifications/roots/list_changed); a handler reads them with
	// Call.Roots during its next call.
	RootsChanged func(ctx context.Context) error

	// Complete, when set, suggests values for a prompt argument or a
	// resource template variable as a person types it (MCP completion):
	// req names the prompt or template, the argument, and what is typed.
	Complete func(ctx context.Context, req *CompleteRequest) (*Completion, error)

	// updates carries ResourceUpdated to the host's Watch streams.
	updates updateHub

	// Tasks lets clients run any of the plugin's tools as an MCP task: the
	// call answers at once with a task, the handler runs on, and the client
	// asks for its state and result later (tasks.go). Such a handler cannot
	// report progress; it may ask the client that made the task (Sample,
	// Elicit, Roots) when that client declared it answers (taskinput.go).
	Tasks bool
}

// Tool is one tool: its definition and the handler that runs it.
type Tool struct {
	Def     protov1.Tool
	Handler func(ctx context.Context, call *Call) (*Result, error)
}

// Resource is a fixed resource and how to read it.
type Resource struct {
	Def  protov1.Resource
	Read func(ctx context.Context, uri string) ([]ResourceContents, error)
}

// Prompt is a prompt template and how to render it.
type Prompt struct {
	Def    protov1.Prompt
	Render func(ctx context.Context, args map[string]string) (*PromptResult, error)
}

// Call is the running call a handler serves: its raw request, the channel
// back to the client for progress and log messages, and the client itself,
// to ask for sampling, elicitation and roots (Sample, Elicit, Roots).
type Call struct {
	Name      string
	Arguments json.RawMessage
	Meta      json.RawMessage
	events    protov1.CallEvents
	progress  bool
	peer      protov1.Peer
}

// Progress reports how far the call is. total may be 0 when unknown. It is a
// no-op when the client did not ask for progress.
func (c *Call) Progress(progress, total float64, message string) {
	if c.events != nil && c.progress {
		c.events.Progress(protov1.Progress{Progress: progress, Total: total, Message: message})
	}
}

// Log sends a log message to the client (MCP logging); level is an MCP level
// ("debug", "info", "notice", "warning", "error", "critical", "alert",
// "emergency"; hclog's "trace", "warn" and "err" are read as their MCP
// equivalents, in any case), data any JSON-encodable value. A level that is
// none of these is sent as "info", and the plugin's log says so.
func (c *Call) Log(level string, data any) {
	if c.events == nil {
		return
	}
	b, err := json.Marshal(data)
	if err != nil {
		b, _ = json.Marshal(fmt.Sprint(data))
	}
	c.events.Log(protov1.LogMessage{Level: mcpLevel(c.Name, level), Data: b})
}

// mcpLevel reads level as an MCP logging level. The gateway would send any
// other word as "info", so a "warn" the author meant as a warning would reach
// a client that asked for warnings only never at all.
func mcpLevel(tool, level string) string {
	l := strings.ToLower(level)
	switch l {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		return l
	case "trace":
		return "debug"
	case "warn":
		return "warning"
	case "err":
		return "error"
	}
	Logger().Warn("Call.Log: unknown level, sent as info", "tool", tool, "level", level,
		"levels", "debug, info, notice, warning, error, critical, alert, emergency")
	return "info"
}

// validate reports a definition an author got wrong, before the plugin serves.
func (p *Plugin) validate() error {
	if p.Name == "" {
		return fmt.Errorf("plugin has no Name")
	}
	if p.Config != nil && p.Configure != nil {
		return fmt.Errorf("plugin %q: set Config or Configure, not both", p.Name)
	}
	seen := map[string]bool{}
	for i, t := range p.Tools {
		switch {
		case t.Def.Name == "":
			return fmt.Errorf("plugin %q: tool %d has no name", p.Name, i)
		case t.Handler == nil:
			return fmt.Errorf("plugin %q: tool %q has no handler", p.Name, t.Def.Name)
		case seen[t.Def.Name]:
			return fmt.Errorf("plugin %q: tool %q is defined twice", p.Name, t.Def.Name)
		}
		seen[t.Def.Name] = true
		if err := checkToolName(t.Def.Name); err != nil {
			return fmt.Errorf("plugin %q: %w", p.Name, err)
		}
		if len(t.Def.InputSchema) > 0 && !json.Valid(t.Def.InputSchema) {
			return fmt.Errorf("plugin %q: tool %q: input schema is not valid JSON", p.Name, t.Def.Name)
		}
		if len(t.Def.OutputSchema) > 0 && !json.Valid(t.Def.OutputSchema) {
			return fmt.Errorf("plugin %q: tool %q: output schema is not valid JSON", p.Name, t.Def.Name)
		}
	}
	for _, r := range p.Resources {
		if r.Def.URI == "" || r.Read == nil {
			return fmt.Errorf("plugin %q: resource %q needs a URI and a Read function", p.Name, r.Def.Name)
		}
	}
	for _, rt := range p.ResourceTemplates {
		if rt.Read == nil {
			return fmt.Errorf("plugin %q: resource template %q needs a Read function", p.Name, rt.Def.URITemplate)
		}
		if _, err := compileTemplate(rt.Def.URITemplate); err != nil {
			return fmt.Errorf("plugin %q: %w", p.Name, err)
		}
	}
	for _, pr := range p.Prompts {
		if pr.Def.Name == "" || pr.Render == nil {
			return fmt.Errorf("plugin %q: prompt %q needs a name and a Render function", p.Name, pr.Def.Name)
		}
	}
	return nil
}

// backend serves a declarative Plugin as a protov1.Backend.
type backend struct {
	p         *Plugin
	tools     map[string]*Tool
	resources map[string]*Resource
	templates []*uritemplate.Template // in the order of p.ResourceTemplates
	prompts   map[string]*Prompt
}

// Backend returns the Plugin as a protov1.Backend, for Serve and for tests.
func (p *Plugin) Backend() (protov1.Backend, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	b := &backend{p: p, tools: map[string]*Tool{}, resources: map[string]*Resource{}, prompts: map[string]*Prompt{}}
	for i := range p.Tools {
		b.tools[p.Tools[i].Def.Name] = &p.Tools[i]
	}
	for i := range p.Resources {
		b.resources[p.Resources[i].Def.URI] = &p.Resources[i]
	}
	for _, rt := range p.ResourceTemplates {
		m, _ := compileTemplate(rt.Def.URITemplate) // validate compiled it
		b.templates = append(b.templates, m)
	}
	for i := range p.Prompts {
		b.prompts[p.Prompts[i].Def.Name] = &p.Prompts[i]
	}
	if p.Tasks {
		return &taskBackend{backend: b, tasks: map[string]*runningTask{}}, nil
	}
	return b, nil
}

func (b *backend) GetInfo(context.Context) (protov1.Info, error) {
	return protov1.Info{
		Name: b.p.Name, Version: b.p.Version, ProtocolMinor: protov1.ProtocolMinor,
		Capabilities: protov1.Capabilities{
			Tools: len(b.p.Tools) > 0, Resources: len(b.p.Resources) > 0 || len(b.p.ResourceTemplates) > 0,
			Prompts: len(b.p.Prompts) > 0, Progress: true,
			Watch: true, Completions: b.p.Complete != nil,
			// A handler may ask its caller; one that never does costs nothing.
			ClientCallbacks: len(b.p.Tools) > 0,
		},
		ConfigSchema: b.configSchema(),
	}, nil
}

func (b *backend) RootsChanged(ctx context.Context) error {
	if b.p.RootsChanged == nil {
		return nil
	}
	return b.p.RootsChanged(ctx)
}

func (b *backend) Health(ctx context.Context) error {
	if b.p.Health == nil {
		return nil
	}
	return b.p.Health(ctx)
}

// configSchema is what the plugin tells the gateway its config block looks
// like; nil when only a raw Configure knows.
func (b *backend) configSchema() json.RawMessage {
	switch {
	case b.p.Config != nil:
		return b.p.Config.Schema
	case b.p.Configure != nil:
		return nil
	}
	return noConfigSchema
}

func (b *backend) Configure(ctx context.Context, config json.RawMessage) error {
	switch {
	case b.p.Config != nil:
		return b.p.Config.Configure(ctx, config)
	case b.p.Configure != nil:
		return b.p.Configure(ctx, config)
	}
	return rejectConfig(config)
}

// rejectConfig refuses settings given to a plugin that takes none, rather than
// ignoring what the operator wrote.
func rejectConfig(config json.RawMessage) error {
	var m map[string]json.RawMessage
	if len(config) == 0 || json.Unmarshal(config, &m) != nil || len(m) == 0 {
		return nil
	}
	ce := &ConfigError{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ce.Fields = append(ce.Fields, FieldError{Path: k, Message: "this plugin takes no configuration"})
	}
	return ce
}

func (b *backend) ListTools(context.Context) ([]protov1.Tool, error) {
	out := make([]protov1.Tool, len(b.p.Tools))
	for i, t := range b.p.Tools {
		out[i] = t.Def
	}
	return out, nil
}

func (b *backend) CallTool(ctx context.Context, req *protov1.CallRequest, events protov1.CallEvents) (*Result, error) {
	t, ok := b.tools[req.Name]
	if !ok {
		return nil, protov1.NotFoundf("tool %q", req.Name)
	}
	res, err := t.Handler(ctx, &Call{Name: req.Name, Arguments: req.Arguments, Meta: req.Meta,
		events: events, progress: req.WantProgress, peer: req.Peer})
	if res == nil && err == nil {
		// An empty success would tell the model the tool did its work; a
		// handler that forgot its result is a bug, and a task says so too.
		return nil, fmt.Errorf("tool %q returned no result", req.Name)
	}
	return res, err
}

func (b *backend) ListResources(context.Context) ([]protov1.Resource, error) {
	out := make([]protov1.Resource, len(b.p.Resources))
	for i, r := range b.p.Resources {
		out[i] = r.Def
	}
	return out, nil
}

func (b *backend) ListResourceTemplates(context.Context) ([]protov1.ResourceTemplate, error) {
	out := make([]protov1.ResourceTemplate, len(b.p.ResourceTemplates))
	for i, t := range b.p.ResourceTemplates {
		out[i] = t.Def
	}
	return out, nil
}

func (b *backend) ReadResource(ctx context.Context, uri string) ([]ResourceContents, error) {
	if r, ok := b.resources[uri]; ok {
		cs, err := r.Read(ctx, uri)
		return fillContents(cs, uri, r.Def.MIMEType), err
	}
	for i, m := range b.templates {
		if vars, ok := matchTemplate(m, uri); ok {
			t := &b.p.ResourceTemplates[i]
			cs, err := t.Read(ctx, uri, vars)
			return fillContents(cs, uri, t.Def.MIMEType), err
		}
	}
	return nil, protov1.NotFoundf("resource %q", uri)
}

// fillContents gives contents a Read left without a URI or MIME type those
// of the resource read: MCP requires the URI, and a client shows text whose
// type it is not told as plain text.
func fillContents(cs []ResourceContents, uri, mimeType string) []ResourceContents {
	for i := range cs {
		if cs[i].URI == "" {
			cs[i].URI = uri
		}
		if cs[i].MIMEType == "" {
			cs[i].MIMEType = mimeType
		}
	}
	return cs
}

func (b *backend) ListPrompts(context.Context) ([]protov1.Prompt, error) {
	out := make([]protov1.Prompt, len(b.p.Prompts))
	for i, p := range b.p.Prompts {
		out[i] = p.Def
	}
	return out, nil
}

func (b *backend) GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error) {
	p, ok := b.prompts[name]
	if !ok {
		return nil, protov1.NotFoundf("prompt %q", name)
	}
	declared := make([]string, len(p.Def.Arguments))
	for i, a := range p.Def.Arguments {
		declared[i] = a.Name
	}
	// A misspelt optional argument would be dropped without a word, and the
	// prompt rendered as if it were not given; tools refuse it, so do prompts.
	// It is named first: a misspelling is why a required argument is missing.
	for _, given := range slices.Sorted(maps.Keys(args)) {
		if !slices.Contains(declared, given) {
			msg := fmt.Sprintf("prompt %q: unknown argument %q", name, given)
			if near := similar.Nearest(given, declared); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			return nil, protov1.InvalidArgumentf("%s", msg)
		}
	}
	for _, a := range p.Def.Arguments {
		if _, given := args[a.Name]; a.Required && !given {
			return nil, protov1.InvalidArgumentf("prompt %q: argument %q is required", name, a.Name)
		}
	}
	return p.Render(ctx, args)
}
