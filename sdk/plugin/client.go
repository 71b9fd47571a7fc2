package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// A handler may ask the client that made its call for things while the call
// runs: a completion from its model (Sample), input from its user (Elicit),
// the roots it works in (Roots). The gateway passes the request to that
// client and no other. When the client cannot be asked (it did not declare
// the capability, or the call has no client) the error wraps
// protov1.ErrNoPeer, and a *protov1.PeerError carries the client's own
// JSON-RPC error when it refused.

// SampleRequest is MCP's sampling/createMessage params.
type SampleRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	MaxTokens        int               `json:"maxTokens"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers".
	IncludeContext string `json:"includeContext,omitempty"`
	// Tools the model may call (MCP tool definitions), and how: a client
	// must have declared sampling with tools.
	Tools      json.RawMessage `json:"tools,omitempty"`
	ToolChoice json.RawMessage `json:"toolChoice,omitempty"`
	Metadata   json.RawMessage `json:"metadata,omitempty"`
}

// ModelPreferences are hints for the client's choice of model.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint names a model, or a family of models, the plugin would like.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// SamplingMessage is one message of a conversation to sample from.
type SamplingMessage struct {
	Role    string         `json:"role"` // "user" or "assistant"
	Content SamplingBlocks `json:"content"`
}

// UserText is a user message of one text block.
func UserText(text string) SamplingMessage {
	return SamplingMessage{Role: "user", Content: SamplingBlocks{{Type: "text", Text: text}}}
}

// SamplingBlock is one content block of a sampled conversation: text, image
// or audio (Data is base64, as MCP sends it), tool_use or tool_result.
type SamplingBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID         string          `json:"toolUseId,omitempty"`
	Content           json.RawMessage `json:"content,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// SamplingBlocks is a message's content. MCP sends one block as an object and
// several as an array; both read into SamplingBlocks, and one block is
// written as an object.
type SamplingBlocks []SamplingBlock

func (b SamplingBlocks) MarshalJSON() ([]byte, error) {
	if len(b) == 1 {
		return json.Marshal(b[0])
	}
	return json.Marshal([]SamplingBlock(b))
}

func (b *SamplingBlocks) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var one SamplingBlock
		if err := json.Unmarshal(t, &one); err != nil {
			return err
		}
		*b = SamplingBlocks{one}
		return nil
	}
	return json.Unmarshal(data, (*[]SamplingBlock)(b))
}

// Text joins the text blocks.
func (b SamplingBlocks) Text() string {
	var s string
	for _, x := range b {
		if x.Type == "text" {
			s += x.Text
		}
	}
	return s
}

// SampleResult is the client's sampling/createMessage result.
type SampleResult struct {
	Role       string         `json:"role"`
	Content    SamplingBlocks `json:"content"`
	Model      string         `json:"model"`
	StopReason string         `json:"stopReason,omitempty"` // "endTurn", "stopSequence", "maxTokens", "toolUse", ...
}

// ElicitRequest is MCP's elicitation/create params: a form (the default
// mode) whose answers RequestedSchema describes, or a URL the user is sent to.
type ElicitRequest struct {
	Mode    string `json:"mode,omitempty"` // "form" (or empty) or "url"
	Message string `json:"message"`
	// RequestedSchema is the form: a flat JSON Schema object of primitive
	// properties. ElicitForm derives it from a struct.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
}

// ElicitForm is a form request whose schema is derived from v's type, the
// way NewTool derives a tool's input schema; decode the answer with
// ElicitResult.Decode.
func ElicitForm(message string, v any) (ElicitRequest, error) {
	schema, err := SchemaOf(v)
	if err != nil {
		return ElicitRequest{}, fmt.Errorf("elicitation form: %w", err)
	}
	if err := flatForm(schema); err != nil {
		return ElicitRequest{}, fmt.Errorf("elicitation form: %w", err)
	}
	return ElicitRequest{Message: message, RequestedSchema: schema}, nil
}

// flatForm refuses a form MCP does not allow: its fields must be strings,
// numbers, integers, booleans or enums, or lists of string enums (a
// multiple choice). A client would refuse a nested object only when the
// user is already waiting.
func flatForm(schema json.RawMessage) error {
	var s struct {
		Properties map[string]struct {
			Type  string `json:"type"`
			Items *struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return err
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := s.Properties[name]
		switch {
		case p.Type == "string" || p.Type == "number" || p.Type == "integer" || p.Type == "boolean":
		case p.Type == "array" && p.Items != nil && len(p.Items.Enum) > 0:
		default:
			kind := p.Type
			if kind == "" {
				kind = "any value"
			} else if kind == "array" {
				kind = "a list without an enum"
			} else {
				kind = "an " + kind
			}
			return fmt.Errorf("field %q is %s; a form takes strings, numbers, booleans and enums, and lists of string enums", name, kind)
		}
	}
	return nil
}

// ElicitURL is a URL-mode request: the client shows the user the URL.
func ElicitURL(message, url, elicitationID string) ElicitRequest {
	return ElicitRequest{Mode: "url", Message: message, URL: url, ElicitationID: elicitationID}
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	Action  string          `json:"action"` // "accept", "decline" or "cancel"
	Content json.RawMessage `json:"content,omitempty"`
}

// Accepted reports whether the user accepted (and, in form mode, answered).
func (r *ElicitResult) Accepted() bool { return r.Action == "accept" }

// Decode decodes an accepted form's answers into v.
func (r *ElicitResult) Decode(v any) error {
	if !r.Accepted() {
		return fmt.Errorf("elicitation was not accepted (action %q)", r.Action)
	}
	if err := json.Unmarshal(r.Content, v); err != nil {
		return fmt.Errorf("decode the elicitation's answers: %w", err)
	}
	return nil
}

// Root is a directory or file the client works in.
type Root struct {
	URI  string          `json:"uri"`
	Name string          `json:"name,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// Sample asks the client's model for a message.
func (c *Call) Sample(ctx context.Context, req SampleRequest) (*SampleResult, error) {
	var out SampleResult
	if err := c.ask(ctx, protov1.MethodCreateMessage, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Elicit asks the client's user for input.
func (c *Call) Elicit(ctx context.Context, req ElicitRequest) (*ElicitResult, error) {
	var out ElicitResult
	if err := c.ask(ctx, protov1.MethodElicit, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Roots asks the client for its roots.
func (c *Call) Roots(ctx context.Context) ([]Root, error) {
	var out struct {
		Roots []Root `json:"roots"`
	}
	if err := c.ask(ctx, protov1.MethodListRoots, struct{}{}, &out); err != nil {
		return nil, err
	}
	return out.Roots, nil
}

// Client is the client of the call as MCP sees it, for what the typed
// methods do not cover: its capabilities, and requests with raw JSON params
// (protov1.AskPeer checks them as Sample, Elicit and Roots do). Nil when the
// call has no client to ask.
func (c *Call) Client() protov1.Peer { return c.peer }

func (c *Call) ask(ctx context.Context, method string, params, out any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	res, err := protov1.AskPeer(ctx, c.peer, method, b)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(res, out); err != nil {
		return fmt.Errorf("%s: the client's result is malformed: %s", method, jsonProblem(err))
	}
	return nil
}
