package gateway

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// This file maps protov1 values to MCP's wire form. Tool results go out as the
// exact JSON built here: annotations and _meta are copied byte for byte, so
// fields mcp-go's typed structs do not know (and numbers beyond float64) survive.

// wireContent is one content block already in its final JSON form. Embedding
// mcp.TextContent makes it an mcp.Content, so mcp-go carries it in a
// CallToolResult; MarshalJSON then writes the prepared bytes instead.
type wireContent struct {
	mcp.TextContent
	raw json.RawMessage
}

func (c wireContent) MarshalJSON() ([]byte, error) { return c.raw, nil }

// toCallToolResult converts a handler's result. An error names the part that
// cannot be sent; callers turn it into an isError result.
func toCallToolResult(r *protov1.Result) (*mcp.CallToolResult, error) {
	out := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(r.Content)), IsError: r.IsError}
	for i, c := range r.Content {
		raw, err := contentJSON(c)
		if err != nil {
			return nil, fmt.Errorf("content[%d] (%s): %w", i, c.Kind, err)
		}
		out.Content = append(out.Content, wireContent{raw: raw})
	}
	if present(r.StructuredContent) {
		if !json.Valid(r.StructuredContent) {
			return nil, fmt.Errorf("structuredContent is not valid JSON")
		}
		out.RawStructuredContent = r.StructuredContent
	}
	meta, err := metaFromRaw(r.Meta)
	if err != nil {
		return nil, fmt.Errorf("_meta: %w", err)
	}
	out.Meta = meta
	return out, nil
}

// errorResult is the isError result a failed call answers with.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: true}
}

// textBlock is the common case, a text block with no annotations or _meta,
// written without building a map.
type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func contentJSON(c protov1.Content) (json.RawMessage, error) {
	if c.Kind == protov1.KindText && !present(c.Annotations) && !present(c.Meta) {
		return json.Marshal(textBlock{Type: "text", Text: c.Text})
	}
	m := map[string]any{}
	switch c.Kind {
	case protov1.KindText:
		m["type"] = "text"
		m["text"] = c.Text
	case protov1.KindImage, protov1.KindAudio:
		m["type"] = c.Kind.String()
		m["data"] = base64.StdEncoding.EncodeToString(c.Data)
		m["mimeType"] = c.MIMEType
	case protov1.KindResource:
		if c.Resource == nil {
			return nil, fmt.Errorf("embedded resource without contents")
		}
		rc, err := resourceContentsJSON(*c.Resource)
		if err != nil {
			return nil, err
		}
		m["type"] = "resource"
		m["resource"] = rc
	case protov1.KindResourceLink:
		if c.Link == nil {
			return nil, fmt.Errorf("resource link without a resource")
		}
		m["type"] = "resource_link"
		m["uri"] = c.Link.URI
		m["name"] = c.Link.Name
		setIf(m, "title", c.Link.Title)
		setIf(m, "description", c.Link.Description)
		setIf(m, "mimeType", c.Link.MIMEType)
		if c.Link.Size >= 0 {
			m["size"] = c.Link.Size
		}
	default:
		return nil, fmt.Errorf("unknown content kind %d", c.Kind)
	}
	if err := setObject(m, "annotations", c.Annotations); err != nil {
		return nil, err
	}
	if err := setObject(m, "_meta", c.Meta); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

func resourceContentsJSON(rc protov1.ResourceContents) (map[string]any, error) {
	m := map[string]any{"uri": rc.URI}
	setIf(m, "mimeType", rc.MIMEType)
	if rc.IsBlob() {
		m["blob"] = base64.StdEncoding.EncodeToString(rc.Blob)
	} else {
		m["text"] = rc.Text
	}
	if err := setObject(m, "_meta", rc.Meta); err != nil {
		return nil, err
	}
	return m, nil
}

// toMCPResourceContents converts what a Resource's Read returned.
func toMCPResourceContents(list []protov1.ResourceContents) ([]mcp.ResourceContents, error) {
	out := make([]mcp.ResourceContents, 0, len(list))
	for i, rc := range list {
		meta, err := rawMap(rc.Meta)
		if err != nil {
			return nil, fmt.Errorf("contents[%d] _meta: %w", i, err)
		}
		if rc.IsBlob() {
			out = append(out, mcp.BlobResourceContents{Meta: meta, URI: rc.URI, MIMEType: rc.MIMEType,
				Blob: base64.StdEncoding.EncodeToString(rc.Blob)})
		} else {
			out = append(out, mcp.TextResourceContents{Meta: meta, URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text})
		}
	}
	return out, nil
}

func toolDefinition(t *Tool) mcp.Tool {
	schema := t.InputSchema
	if schema == nil {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	a := t.Annotations
	return mcp.Tool{
		Name:           t.Name,
		Title:          t.Title,
		Description:    t.Description,
		RawInputSchema: schema,
		Annotations: mcp.ToolAnnotation{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: a.Destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   a.OpenWorld,
		},
	}
}

func resourceDefinition(r protov1.Resource) mcp.Resource {
	def := mcp.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
	if r.Size >= 0 {
		size := r.Size
		def.Size = &size
	}
	if present(r.Annotations) {
		var a mcp.Annotations
		if json.Unmarshal(r.Annotations, &a) == nil {
			def.Annotations = &a
		}
	}
	if meta, err := metaFromRaw(r.Meta); err == nil {
		def.Meta = meta
	}
	return def
}

// metaFromRaw keeps every _meta value as raw JSON inside mcp.Meta, whose
// MarshalJSON writes them back unchanged.
func metaFromRaw(raw json.RawMessage) (*mcp.Meta, error) {
	fields, err := rawMap(raw)
	if err != nil || fields == nil {
		return nil, err
	}
	return &mcp.Meta{AdditionalFields: fields}, nil
}

func rawMap(raw json.RawMessage) (map[string]any, error) {
	if !present(raw) {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	return out, nil
}

func setObject(m map[string]any, key string, raw json.RawMessage) error {
	if !present(raw) {
		return nil
	}
	if !isJSONObject(raw) {
		return fmt.Errorf("%s is not a JSON object", key)
	}
	m[key] = raw
	return nil
}

func setIf(m map[string]any, key, value string) {
	if value != "" {
		m[key] = value
	}
}

// present reports whether raw holds a value: absent and null both mean "not given".
func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

func sortByOrder(tools []mcp.Tool, order map[string]int) {
	sort.SliceStable(tools, func(i, j int) bool { return order[tools[i].Name] < order[tools[j].Name] })
}
