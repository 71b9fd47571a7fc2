package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Text is a result of one text block.
func Text(s string) *Result {
	return &Result{Content: []Content{TextContent(s)}}
}

// Errorf is a failed result: the model reads the message and may try again.
func Errorf(format string, args ...any) *Result {
	return &Result{IsError: true, Content: []Content{TextContent(fmt.Sprintf(format, args...))}}
}

// JSON is a result whose structured content is v; text is the human-readable
// rendering (when empty, the indented JSON of v). MCP wants structured
// content to be an object: v must encode as one (a struct, a map), so a list
// goes in a field, e.g. map[string]any{"items": list}. Anything else is an
// error here rather than a result MCP clients refuse.
func JSON(v any, text string) (*Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode structured result: %w", err)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("structured result must be a JSON object, not %s (%T): put it in a field, e.g. map[string]any{\"items\": v}", jsonKind(t), v)
	}
	if text == "" {
		pretty, _ := json.MarshalIndent(v, "", "  ")
		text = string(pretty)
	}
	return &Result{Content: []Content{TextContent(text)}, StructuredContent: b}, nil
}

// TextContent is a text block.
func TextContent(s string) Content { return Content{Kind: protov1.KindText, Text: s} }

// ImageContent is an image block of raw bytes (not base64).
func ImageContent(data []byte, mimeType string) Content {
	return Content{Kind: protov1.KindImage, Data: data, MIMEType: mimeType}
}

// AudioContent is an audio block of raw bytes (not base64).
func AudioContent(data []byte, mimeType string) Content {
	return Content{Kind: protov1.KindAudio, Data: data, MIMEType: mimeType}
}

// TextResource embeds a text resource.
func TextResource(uri, mimeType, text string) Content {
	return Content{Kind: protov1.KindResource, Resource: &ResourceContents{URI: uri, MIMEType: mimeType, Text: text}}
}

// BlobResource embeds a binary resource.
func BlobResource(uri, mimeType string, blob []byte) Content {
	if blob == nil {
		blob = []byte{}
	}
	return Content{Kind: protov1.KindResource, Resource: &ResourceContents{URI: uri, MIMEType: mimeType, Blob: blob}}
}

// ResourceLink points the client at a resource it may read.
func ResourceLink(uri, name, description, mimeType string) Content {
	return Content{Kind: protov1.KindResourceLink, Link: &protov1.Resource{
		URI: uri, Name: name, Description: description, MIMEType: mimeType, Size: -1}}
}

// ResourceDef describes a fixed resource.
func ResourceDef(uri, name, description, mimeType string) protov1.Resource {
	return protov1.Resource{URI: uri, Name: name, Description: description, MIMEType: mimeType, Size: -1}
}

// PromptDef describes a prompt template.
func PromptDef(name, description string, args ...PromptArgument) protov1.Prompt {
	return protov1.Prompt{Name: name, Description: description, Arguments: args}
}
