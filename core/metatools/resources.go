package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func (h *Handlers) listResources(_ context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		Plugin string `json:"plugin"`
		Limit  *int   `json:"limit"`
		Offset *int   `json:"offset"`
	}
	if err := decode("list_resources", raw, &in); err != nil {
		return nil, err
	}
	if in.Plugin != "" {
		if _, ok := h.Plugins.Get(in.Plugin); !ok {
			return nil, h.unknownPlugin("list_resources", in.Plugin)
		}
	}
	rs, ts := h.Catalog.Resources(in.Plugin)
	offset, lo, hi, err := page("list_resources", in.Limit, in.Offset, 50, len(rs))
	if err != nil {
		return nil, err
	}
	type line struct {
		URI         string `json:"uri"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mime_type,omitempty"`
		Plugin      string `json:"plugin"`
	}
	lines := []line{}
	for _, r := range rs[lo:hi] {
		lines = append(lines, line{URI: r.Def.URI, Name: r.Def.Name, Description: summary(r.Def.Description), MIMEType: r.Def.MIMEType, Plugin: r.Plugin})
	}
	type tline struct {
		URITemplate string `json:"uri_template"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Plugin      string `json:"plugin"`
	}
	templates := []tline{}
	for _, t := range ts {
		templates = append(templates, tline{URITemplate: t.Def.URITemplate, Name: t.Def.Name, Description: summary(t.Def.Description), Plugin: t.Plugin})
	}
	out := map[string]any{"resources": lines, "templates": templates, "total": len(rs), "offset": offset, "truncated": hi < len(rs)}
	if note := pastEnd(offset, len(rs)); note != "" {
		out["note"] = note
	}
	return jsonResult(out)
}

func (h *Handlers) describeResource(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := decode("describe_resource", raw, &in); err != nil {
		return nil, err
	}
	if in.URI == "" {
		return nil, &ArgumentError{Tool: "describe_resource", Argument: "uri", Problem: "is required"}
	}
	plugin, r, ok := h.Catalog.RouteResource(in.URI)
	if !ok {
		h.AwaitOwner(ctx, in.URI)
		plugin, r, ok = h.Catalog.RouteResource(in.URI)
	}
	if !ok {
		return h.unknownResource(in.URI), nil
	}
	if r == nil {
		return jsonResult(map[string]any{"uri": in.URI, "plugin": plugin, "from_template": true, "plugin_state": h.state(plugin)})
	}
	out := map[string]any{"uri": r.Def.URI, "name": r.Def.Name, "title": r.Def.Title, "description": r.Def.Description,
		"mime_type": r.Def.MIMEType, "plugin": plugin, "plugin_state": h.state(plugin)}
	if r.Def.Size >= 0 {
		out["size"] = r.Def.Size
	}
	return jsonResult(out)
}

func (h *Handlers) getResource(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := decode("get_resource", raw, &in); err != nil {
		return nil, err
	}
	if in.URI == "" {
		return nil, &ArgumentError{Tool: "get_resource", Argument: "uri", Problem: "is required"}
	}
	plugin, _, ok := h.Catalog.RouteResource(in.URI)
	if !ok {
		h.AwaitOwner(ctx, in.URI)
		plugin, _, ok = h.Catalog.RouteResource(in.URI)
	}
	if !ok {
		return h.unknownResource(in.URI), nil
	}
	sup, _ := h.Plugins.Get(plugin)
	ctx, cancel := context.WithTimeout(ctx, h.CallTimeout(plugin))
	defer cancel()
	var contents []protov1.ResourceContents
	err := sup.Use(ctx, func(b protov1.Backend) error {
		var err error
		contents, err = b.ReadResource(ctx, in.URI)
		return err
	})
	if err != nil {
		// The plugin's own words: for a URI of a template, "not found" is
		// the plugin's judgement of the value, and it says what is wrong.
		return errorResult("read resource %q from plugin %q: %v", clip.Name(in.URI), plugin, clip.Message(err)), nil
	}
	res := &protov1.Result{}
	for i := range contents {
		res.Content = append(res.Content, protov1.Content{Kind: protov1.KindResource, Resource: &contents[i]})
	}
	return res, nil
}

func (h *Handlers) listPrompts(_ context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		Plugin string `json:"plugin"`
		Limit  *int   `json:"limit"`
		Offset *int   `json:"offset"`
	}
	if err := decode("list_prompts", raw, &in); err != nil {
		return nil, err
	}
	if in.Plugin != "" {
		if _, ok := h.Plugins.Get(in.Plugin); !ok {
			return nil, h.unknownPlugin("list_prompts", in.Plugin)
		}
	}
	ps := h.Catalog.Prompts(in.Plugin)
	offset, lo, hi, err := page("list_prompts", in.Limit, in.Offset, 50, len(ps))
	if err != nil {
		return nil, err
	}
	type line struct {
		Name    string `json:"name"`
		Summary string `json:"summary"`
		Plugin  string `json:"plugin"`
	}
	lines := []line{}
	for _, p := range ps[lo:hi] {
		lines = append(lines, line{Name: p.ID, Summary: summary(p.Def.Description), Plugin: p.Plugin})
	}
	out := map[string]any{"prompts": lines, "total": len(ps), "offset": offset, "truncated": hi < len(ps)}
	if note := pastEnd(offset, len(ps)); note != "" {
		out["note"] = note
	}
	return jsonResult(out)
}

func (h *Handlers) describePrompt(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := decode("describe_prompt", raw, &in); err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, &ArgumentError{Tool: "describe_prompt", Argument: "name", Problem: "is required; list_prompts shows the prompts there are"}
	}
	p, ok := h.Catalog.Prompt(in.Name)
	if !ok {
		h.AwaitOwner(ctx, in.Name)
		p, ok = h.Catalog.Prompt(in.Name)
	}
	if !ok {
		return h.unknownPrompt(in.Name), nil
	}
	args := []map[string]any{}
	for _, a := range p.Def.Arguments {
		args = append(args, map[string]any{"name": a.Name, "description": a.Description, "required": a.Required})
	}
	return jsonResult(map[string]any{"name": p.ID, "original_name": p.Def.Name, "title": p.Def.Title,
		"description": p.Def.Description, "arguments": args, "plugin": p.Plugin, "plugin_state": h.state(p.Plugin)})
}

func (h *Handlers) getPrompt(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		Name      string                     `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if err := decode("get_prompt", raw, &in); err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, &ArgumentError{Tool: "get_prompt", Argument: "name", Problem: "is required; list_prompts shows the prompts there are"}
	}
	args, err := promptArguments(in.Arguments)
	if err != nil {
		return nil, err
	}
	p, ok := h.Catalog.Prompt(in.Name)
	if !ok {
		h.AwaitOwner(ctx, in.Name)
		p, ok = h.Catalog.Prompt(in.Name)
	}
	if !ok {
		return h.unknownPrompt(in.Name), nil
	}
	declared := make([]string, 0, len(p.Def.Arguments))
	for _, a := range p.Def.Arguments {
		declared = append(declared, a.Name)
	}
	// A misspelt name first: it is why a required one is missing.
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !slices.Contains(declared, name) {
			problem := "prompt " + p.ID + " takes no arguments"
			if len(declared) > 0 {
				problem = fmt.Sprintf("is not an argument of prompt %s; its arguments: %s", p.ID, strings.Join(declared, ", "))
			}
			return nil, &ArgumentError{Tool: "get_prompt", Argument: "arguments." + name, Problem: problem}
		}
	}
	for _, a := range p.Def.Arguments {
		if _, given := args[a.Name]; a.Required && !given {
			return nil, &ArgumentError{Tool: "get_prompt", Argument: "arguments." + a.Name, Problem: "is required by prompt " + p.ID}
		}
	}
	sup, _ := h.Plugins.Get(p.Plugin)
	ctx, cancel := context.WithTimeout(ctx, h.CallTimeout(p.Plugin))
	defer cancel()
	var pr *protov1.PromptResult
	err = sup.Use(ctx, func(b protov1.Backend) error {
		var err error
		pr, err = b.GetPrompt(ctx, p.Def.Name, args)
		return err
	})
	if err != nil {
		return errorResult("get prompt %s from plugin %q: %v", p.ID, p.Plugin, clip.Message(err)), nil
	}
	// Each message's content block is passed whole; the roles travel in the
	// structured content, in the same order.
	res := &protov1.Result{}
	roles := []string{}
	for _, m := range pr.Messages {
		res.Content = append(res.Content, m.Content)
		roles = append(roles, m.Role)
	}
	res.StructuredContent, _ = json.Marshal(map[string]any{"description": pr.Description, "roles": roles})
	return res, nil
}

// AwaitOwner gives the plugins that may serve name (a prompt's exposed name
// or a resource's URI) and have not yet told what they serve the time to
// start, within the call timeout, before a lookup answers that there is no
// such thing: right after start-up that may only mean "not yet". The
// meta-tools call it, and so does the MCP front for prompts/get,
// resources/read and the like.
func (h *Handlers) AwaitOwner(ctx context.Context, name string) {
	plugin, _ := catalog.PluginOf(name)
	ctx, cancel := context.WithTimeout(ctx, h.CallTimeout(plugin))
	defer cancel()
	if err := h.Plugins.AwaitOwner(ctx, name); err != nil {
		h.Logger.Debug("plugins did not start while a request waited for them", "name", name, "error", err)
	}
}

// promptArguments reads get_prompt's arguments, whose values MCP makes
// strings, naming the one that is not.
func promptArguments(raw map[string]json.RawMessage) (map[string]string, error) {
	args := make(map[string]string, len(raw))
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		var v string
		if err := json.Unmarshal(raw[name], &v); err != nil {
			problem := "must be a string"
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				problem = typeProblem(te)
			}
			return nil, &ArgumentError{Tool: "get_prompt", Argument: "arguments." + name, Problem: problem}
		}
		args[name] = v
	}
	return args, nil
}

// unknownPrompt answers a prompt name the catalog lacks, with the name
// meant when there is one (catalog.PromptsMeant).
func (h *Handlers) unknownPrompt(name string) *protov1.Result {
	return errorResult("unknown prompt %q; %slist_prompts shows the prompts there are", clip.Name(name), didYouMean(h.Catalog.PromptsMeant(name)...))
}

// unknownResource answers a URI no plugin serves, with the resource meant
// when there is one.
func (h *Handlers) unknownResource(uri string) *protov1.Result {
	var meant []string
	if m := h.Catalog.ResourceMeant(uri); m != "" {
		meant = append(meant, m)
	}
	return errorResult("no plugin serves resource %q; %slist_resources shows the resources and templates there are", clip.Name(uri), didYouMean(meant...))
}

// didYouMean asks whether the names meant were meant, followed by a space;
// "" when there are none.
func didYouMean(meant ...string) string {
	if len(meant) == 0 {
		return ""
	}
	return "did you mean " + strings.Join(quoteAll(meant), " or ") + "? "
}
