package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// Page selects a slice of a list; zero values take the gateway's defaults.
type Page struct {
	Limit, Offset int
}

func (p Page) args(m map[string]any) map[string]any {
	if p.Limit > 0 {
		m["limit"] = p.Limit
	}
	if p.Offset > 0 {
		m["offset"] = p.Offset
	}
	return m
}

// ListTools lists the tools of every plugin, or of one, with plugin states.
func (c *Client) ListTools(ctx context.Context, plugin string, page Page) (*ToolList, error) {
	args := page.args(map[string]any{})
	if plugin != "" {
		args["plugin"] = plugin
	}
	var out ToolList
	return &out, c.metaJSON(ctx, "list_tools", args, &out)
}

// Filter is a filter_tools query; see the meta-tool's schema.
type Filter struct {
	Query             string
	Pattern           string
	DescriptionFilter string
	Labels            map[string]string
	Plugin            string
	CaseSensitive     bool
	IncludeSchema     bool
	Page
}

// FilterTools finds tools, best first.
func (c *Client) FilterTools(ctx context.Context, f Filter) (*ToolList, error) {
	args := f.args(map[string]any{})
	for k, v := range map[string]string{"query": f.Query, "pattern": f.Pattern, "description_filter": f.DescriptionFilter, "plugin": f.Plugin} {
		if v != "" {
			args[k] = v
		}
	}
	if len(f.Labels) > 0 {
		args["labels"] = f.Labels
	}
	if f.CaseSensitive {
		args["case_sensitive"] = true
	}
	if f.IncludeSchema {
		args["include_schema"] = true
	}
	var out ToolList
	return &out, c.metaJSON(ctx, "filter_tools", args, &out)
}

// DescribeTool returns one tool in full; an unknown name is a *ToolError
// that lists the closest names.
func (c *Client) DescribeTool(ctx context.Context, name string) (*ToolDescription, error) {
	var out ToolDescription
	return &out, c.metaJSON(ctx, "describe_tool", map[string]any{"name": name}, &out)
}

// Plugins lists every configured plugin.
func (c *Client) Plugins(ctx context.Context) ([]Plugin, error) {
	var out struct {
		Plugins []Plugin `json:"plugins"`
	}
	return out.Plugins, c.metaJSON(ctx, "core_plugin_list", map[string]any{}, &out)
}

// PluginAction is what PluginDo does to a plugin.
type PluginAction string

// The actions of the core_plugin_* tools.
const (
	PluginGet     PluginAction = "get"
	PluginStart   PluginAction = "start"
	PluginStop    PluginAction = "stop"
	PluginRestart PluginAction = "restart"
)

// PluginDo gets, starts, stops or restarts a plugin and returns its state
// afterwards.
func (c *Client) PluginDo(ctx context.Context, action PluginAction, name string) (*Plugin, error) {
	switch action {
	case PluginGet, PluginStart, PluginStop, PluginRestart:
	default:
		return nil, fmt.Errorf("unknown plugin action %q (get, start, stop, restart)", action)
	}
	var out Plugin
	return &out, c.metaJSON(ctx, "core_plugin_"+string(action), map[string]any{"name": name}, &out)
}

// ListResources lists the resources and templates plugins serve.
func (c *Client) ListResources(ctx context.Context, plugin string, page Page) (*ResourceList, error) {
	args := page.args(map[string]any{})
	if plugin != "" {
		args["plugin"] = plugin
	}
	var out ResourceList
	return &out, c.metaJSON(ctx, "list_resources", args, &out)
}

// ReadResource reads a resource through get_resource.
func (c *Client) ReadResource(ctx context.Context, uri string) ([]ResourceContents, error) {
	res, err := c.Meta(ctx, "get_resource", map[string]any{"uri": uri})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, &ToolError{Tool: "get_resource", Message: res.Text()}
	}
	var out []ResourceContents
	for _, c := range res.Content {
		if c.Resource != nil {
			out = append(out, *c.Resource)
		}
	}
	return out, nil
}

// ListPrompts lists the prompt templates plugins serve.
func (c *Client) ListPrompts(ctx context.Context, plugin string, page Page) (*PromptList, error) {
	args := page.args(map[string]any{})
	if plugin != "" {
		args["plugin"] = plugin
	}
	var out PromptList
	return &out, c.metaJSON(ctx, "list_prompts", args, &out)
}

// GetPrompt renders a prompt template through get_prompt.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*Prompt, error) {
	in := map[string]any{"name": name}
	if len(args) > 0 {
		in["arguments"] = args
	}
	res, err := c.Meta(ctx, "get_prompt", in)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, &ToolError{Tool: "get_prompt", Message: res.Text()}
	}
	// get_prompt answers one content block per message and their roles, in
	// order, in the structured content.
	var meta struct {
		Description string   `json:"description"`
		Roles       []string `json:"roles"`
	}
	if present(res.StructuredContent) {
		if err := json.Unmarshal(res.StructuredContent, &meta); err != nil {
			return nil, fmt.Errorf("get_prompt: read roles: %w", err)
		}
	}
	out := &Prompt{Description: meta.Description}
	for i, c := range res.Content {
		role := "user"
		if i < len(meta.Roles) {
			role = meta.Roles[i]
		}
		out.Messages = append(out.Messages, PromptMessage{Role: role, Content: c})
	}
	return out, nil
}
