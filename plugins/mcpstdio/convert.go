package mcpstdio

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// The wire shapes below are decoded from the server's JSON directly rather
// than through mcp-go's typed results, so that every field toolgate carries
// (annotations, _meta, blobs, sizes) survives exactly as the server sent it.

type wireTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  *struct {
		Title           string `json:"title"`
		ReadOnlyHint    *bool  `json:"readOnlyHint"`
		DestructiveHint *bool  `json:"destructiveHint"`
		IdempotentHint  *bool  `json:"idempotentHint"`
		OpenWorldHint   *bool  `json:"openWorldHint"`
	} `json:"annotations"`
	Meta      json.RawMessage `json:"_meta"`
	Execution *struct {
		TaskSupport string `json:"taskSupport"`
	} `json:"execution"`
}

type wireResource struct {
	URI         string          `json:"uri"`
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	MIMEType    string          `json:"mimeType"`
	Size        *int64          `json:"size"`
	Annotations json.RawMessage `json:"annotations"`
	Meta        json.RawMessage `json:"_meta"`
}

type wireResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType"`
	Text     string          `json:"text"`
	Blob     *string         `json:"blob"`
	Meta     json.RawMessage `json:"_meta"`
}

type wireContent struct {
	Type        string                `json:"type"`
	Text        string                `json:"text"`
	Data        string                `json:"data"`
	MIMEType    string                `json:"mimeType"`
	Resource    *wireResourceContents `json:"resource"`
	Annotations json.RawMessage       `json:"annotations"`
	Meta        json.RawMessage       `json:"_meta"`
	// A resource_link carries a resource description inline; the fields it
	// shares with the block (mimeType, annotations, _meta) land on the block.
	wireResource
}

type wireResult struct {
	Content           []json.RawMessage `json:"content"`
	StructuredContent json.RawMessage   `json:"structuredContent"`
	IsError           bool              `json:"isError"`
	Meta              json.RawMessage   `json:"_meta"`
}

type wirePrompt struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Arguments   []struct {
		Name        string `json:"name"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Required    bool   `json:"required"`
	} `json:"arguments"`
	Meta json.RawMessage `json:"_meta"`
}

type wirePromptResult struct {
	Description string `json:"description"`
	Messages    []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func toolFromWire(w wireTool) protov1.Tool {
	t := protov1.Tool{
		Name: w.Name, Title: w.Title, Description: w.Description,
		InputSchema: present(w.InputSchema), OutputSchema: present(w.OutputSchema), Meta: present(w.Meta),
	}
	if a := w.Annotations; a != nil {
		t.Annotations = protov1.Annotations{Title: a.Title, ReadOnly: a.ReadOnlyHint,
			Destructive: a.DestructiveHint, Idempotent: a.IdempotentHint, OpenWorld: a.OpenWorldHint}
	}
	return t
}

func resourceFromWire(w wireResource) protov1.Resource {
	size := int64(-1)
	if w.Size != nil {
		size = *w.Size
	}
	return protov1.Resource{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
		MIMEType: w.MIMEType, Size: size, Annotations: present(w.Annotations), Meta: present(w.Meta)}
}

func templateFromWire(w wireResource) protov1.ResourceTemplate {
	return protov1.ResourceTemplate{URITemplate: w.URITemplate, Name: w.Name, Title: w.Title,
		Description: w.Description, MIMEType: w.MIMEType, Annotations: present(w.Annotations), Meta: present(w.Meta)}
}

func promptFromWire(w wirePrompt) protov1.Prompt {
	p := protov1.Prompt{Name: w.Name, Title: w.Title, Description: w.Description, Meta: present(w.Meta)}
	for _, a := range w.Arguments {
		p.Arguments = append(p.Arguments, protov1.PromptArgument{Name: a.Name, Title: a.Title,
			Description: a.Description, Required: a.Required})
	}
	return p
}

func contentsFromWire(w wireResourceContents) (protov1.ResourceContents, error) {
	c := protov1.ResourceContents{URI: w.URI, MIMEType: w.MIMEType, Text: w.Text, Meta: present(w.Meta)}
	if w.Blob != nil {
		b, err := decodeBase64(*w.Blob)
		if err != nil {
			return c, fmt.Errorf("blob of %s: %w", w.URI, err)
		}
		c.Blob = b
	}
	return c, nil
}

// contentFromWire maps one content block. A block of a kind this protocol
// has no slot for travels as text holding its JSON, so nothing is lost.
func contentFromWire(raw json.RawMessage) (protov1.Content, error) {
	var w wireContent
	if err := json.Unmarshal(raw, &w); err != nil {
		return protov1.Content{}, fmt.Errorf("decode content block: %w", err)
	}
	c := protov1.Content{Annotations: present(w.Annotations), Meta: present(w.Meta)}
	switch w.Type {
	case "text":
		c.Kind, c.Text = protov1.KindText, w.Text
	case "image", "audio":
		c.Kind, c.MIMEType = protov1.KindImage, w.MIMEType
		if w.Type == "audio" {
			c.Kind = protov1.KindAudio
		}
		data, err := decodeBase64(w.Data)
		if err != nil {
			return c, fmt.Errorf("%s data: %w", w.Type, err)
		}
		c.Data = data
	case "resource":
		if w.Resource == nil {
			return c, fmt.Errorf("resource block without a resource")
		}
		rc, err := contentsFromWire(*w.Resource)
		if err != nil {
			return c, err
		}
		c.Kind, c.Resource = protov1.KindResource, &rc
	case "resource_link":
		link := resourceFromWire(w.wireResource)
		// The block's annotations and _meta are the link's own; keep them once,
		// on the block, where every other kind keeps them.
		link.Annotations, link.Meta, link.MIMEType = nil, nil, w.MIMEType
		c.Kind, c.Link = protov1.KindResourceLink, &link
	default:
		c.Kind, c.Text = protov1.KindText, string(raw)
		c.Annotations, c.Meta = nil, nil
	}
	return c, nil
}

func resultFromWire(raw json.RawMessage) (*protov1.Result, error) {
	var w wireResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decode tool result: %w", err)
	}
	r := &protov1.Result{StructuredContent: present(w.StructuredContent), IsError: w.IsError, Meta: present(w.Meta)}
	for i, block := range w.Content {
		c, err := contentFromWire(block)
		if err != nil {
			return nil, fmt.Errorf("content %d: %w", i, err)
		}
		r.Content = append(r.Content, c)
	}
	return r, nil
}

func promptResultFromWire(raw json.RawMessage) (*protov1.PromptResult, error) {
	var w wirePromptResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decode prompt: %w", err)
	}
	r := &protov1.PromptResult{Description: w.Description}
	for i, m := range w.Messages {
		c, err := contentFromWire(m.Content)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		r.Messages = append(r.Messages, protov1.PromptMessage{Role: m.Role, Content: c})
	}
	return r, nil
}

// decodeBase64 accepts padded and unpadded standard base64, as servers send both.
func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if b2, err2 := base64.RawStdEncoding.DecodeString(s); err2 == nil {
			return b2, nil
		}
		return nil, fmt.Errorf("invalid base64: %w", err)
	}
	return b, nil
}

// present returns raw unless it is absent or JSON null, so "not sent" stays nil.
func present(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	return raw
}
