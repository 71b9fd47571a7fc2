package client

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// ToolResult is an MCP CallToolResult. Raw is the result exactly as the
// gateway sent it, for callers that print or compare it whole.
type ToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`
	Raw               json.RawMessage `json:"-"`
}

// Content is one content block: text, image, audio, resource (embedded
// contents) or resource_link.
type Content struct {
	Type     string            `json:"type"`
	Text     string            `json:"text,omitempty"`
	Data     string            `json:"data,omitempty"` // base64, for image and audio
	MIMEType string            `json:"mimeType,omitempty"`
	Resource *ResourceContents `json:"resource,omitempty"`
	// URI, Name, Title and Description describe a resource_link.
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// Bytes decodes the binary payload of an image, audio or blob resource.
func (c *Content) Bytes() ([]byte, error) {
	switch {
	case c.Data != "":
		return base64.StdEncoding.DecodeString(c.Data)
	case c.Resource != nil && c.Resource.Blob != "":
		return base64.StdEncoding.DecodeString(c.Resource.Blob)
	}
	return nil, fmt.Errorf("%s content has no binary data", c.Type)
}

// ResourceContents is the text or base64 blob of one resource.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// Text joins the text blocks of a result, one per line.
func (r *ToolResult) Text() string {
	out := ""
	for _, c := range r.Content {
		if c.Type == "text" {
			if out != "" {
				out += "\n"
			}
			out += c.Text
		}
	}
	return out
}

// JSON is the result's structured content, or else its first text block when
// that is JSON; nil when there is neither.
func (r *ToolResult) JSON() json.RawMessage {
	if present(r.StructuredContent) {
		return r.StructuredContent
	}
	for _, c := range r.Content {
		if c.Type == "text" && json.Valid([]byte(c.Text)) {
			return json.RawMessage(c.Text)
		}
	}
	return nil
}

// Progress is one notifications/progress of a running call.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// ToolList is a page of list_tools or filter_tools.
type ToolList struct {
	Tools     []ToolSummary `json:"tools"`
	Total     int           `json:"total"`
	Offset    int           `json:"offset"`
	Truncated bool          `json:"truncated"`
	// Plugins is every plugin's state in a list_tools page; in a
	// filter_tools answer whose best match is weak, the plugins on offer
	// with what their tools are about.
	Plugins []PluginState `json:"plugins,omitempty"`
	// Note is filter_tools' word on a weak match, or on a plugin with no
	// tools to search.
	Note string `json:"note,omitempty"`
	// Unavailable are the plugins a weak filter_tools match names as down or
	// not started, whose tools the search could not see.
	Unavailable []PluginState `json:"unavailable,omitempty"`
}

// ToolSummary is one line of a tool list.
type ToolSummary struct {
	Name        string          `json:"name"`
	Summary     string          `json:"summary"`
	Plugin      string          `json:"plugin"`
	Score       *float64        `json:"score,omitempty"`
	State       string          `json:"state,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// PluginState is a plugin as list_tools and filter_tools report it.
type PluginState struct {
	Name      string `json:"name"`
	State     string `json:"state,omitempty"`
	Tools     int    `json:"tools"`
	LastError string `json:"last_error,omitempty"`
	NextTry   string `json:"next_try,omitempty"`
	// About is what the plugin's tools are about (filter_tools' offer).
	About []string `json:"about,omitempty"`
}

// UnmarshalJSON reads both shapes: list_tools names a plugin "name",
// filter_tools' offer names it "plugin".
func (p *PluginState) UnmarshalJSON(b []byte) error {
	type plain PluginState
	var v struct {
		plain
		Plugin string `json:"plugin"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = PluginState(v.plain)
	if p.Name == "" {
		p.Name = v.Plugin
	}
	return nil
}

// ToolDescription is describe_tool's answer.
type ToolDescription struct {
	Name         string            `json:"name"`
	OriginalName string            `json:"original_name,omitempty"`
	Title        string            `json:"title,omitempty"`
	Description  string            `json:"description"`
	InputSchema  json.RawMessage   `json:"input_schema"`
	OutputSchema json.RawMessage   `json:"output_schema,omitempty"`
	Annotations  map[string]any    `json:"annotations,omitempty"`
	Plugin       string            `json:"plugin"`
	Labels       map[string]string `json:"labels,omitempty"`
	PluginState  json.RawMessage   `json:"plugin_state,omitempty"`
	Example      json.RawMessage   `json:"example,omitempty"`
}

// Plugin is one plugin as the core_plugin_* tools report it.
type Plugin struct {
	Name          string          `json:"name"`
	State         string          `json:"state"`
	Since         string          `json:"since,omitempty"`
	Restarts      int             `json:"restarts"`
	Tools         int             `json:"tools"`
	Pid           int             `json:"pid,omitempty"`
	UptimeSeconds int             `json:"uptime_seconds,omitempty"`
	Version       string          `json:"version,omitempty"`
	LastError     string          `json:"last_error,omitempty"`
	Stderr        json.RawMessage `json:"stderr,omitempty"`
	Collisions    []string        `json:"collisions,omitempty"`
	NextTry       string          `json:"next_try,omitempty"`
}

// ResourceList is a page of list_resources.
type ResourceList struct {
	Resources []struct {
		URI         string `json:"uri"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mime_type,omitempty"`
		Plugin      string `json:"plugin"`
	} `json:"resources"`
	Templates []struct {
		URITemplate string `json:"uri_template"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Plugin      string `json:"plugin"`
	} `json:"templates"`
	Total     int  `json:"total"`
	Offset    int  `json:"offset"`
	Truncated bool `json:"truncated"`
}

// PromptList is a page of list_prompts.
type PromptList struct {
	Prompts []struct {
		Name    string `json:"name"`
		Summary string `json:"summary"`
		Plugin  string `json:"plugin"`
	} `json:"prompts"`
	Total     int  `json:"total"`
	Offset    int  `json:"offset"`
	Truncated bool `json:"truncated"`
}

// PromptMessage is one message of a rendered prompt.
type PromptMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// Prompt is a rendered prompt.
type Prompt struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}
