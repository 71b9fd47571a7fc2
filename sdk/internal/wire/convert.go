// Package wire carries protov1 values across the gRPC boundary: conversion to and
// from the generated messages, the gRPC server over a Backend, the client that is
// a Backend, and the go-plugin glue both sides share.
package wire

import (
	"encoding/json"
	"strings"

	"github.com/toolgate/toolgate/sdk/internal/pluginv1"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func raw(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(b)
}

func toolToPB(t protov1.Tool) *pluginv1.Tool {
	a := t.Annotations
	return &pluginv1.Tool{
		Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchemaJson: t.InputSchema, OutputSchemaJson: t.OutputSchema,
		Annotations: &pluginv1.ToolAnnotations{
			Title: a.Title, ReadOnly: a.ReadOnly, Destructive: a.Destructive,
			Idempotent: a.Idempotent, OpenWorld: a.OpenWorld,
		},
		Labels: t.Labels, MetaJson: t.Meta,
	}
}

func toolFromPB(t *pluginv1.Tool) protov1.Tool {
	out := protov1.Tool{
		Name: t.GetName(), Title: t.GetTitle(), Description: t.GetDescription(),
		InputSchema: raw(t.GetInputSchemaJson()), OutputSchema: raw(t.GetOutputSchemaJson()),
		Labels: t.GetLabels(), Meta: raw(t.GetMetaJson()),
	}
	if a := t.GetAnnotations(); a != nil {
		out.Annotations = protov1.Annotations{
			Title: a.GetTitle(), ReadOnly: a.ReadOnly, Destructive: a.Destructive,
			Idempotent: a.Idempotent, OpenWorld: a.OpenWorld,
		}
	}
	return out
}

func resourceToPB(r *protov1.Resource) *pluginv1.Resource {
	return &pluginv1.Resource{
		Uri: r.URI, Name: r.Name, Title: r.Title, Description: r.Description,
		MimeType: r.MIMEType, Size: r.Size, AnnotationsJson: r.Annotations, MetaJson: r.Meta,
	}
}

func resourceFromPB(r *pluginv1.Resource) protov1.Resource {
	return protov1.Resource{
		URI: r.GetUri(), Name: r.GetName(), Title: r.GetTitle(), Description: r.GetDescription(),
		MIMEType: r.GetMimeType(), Size: r.GetSize(),
		Annotations: raw(r.GetAnnotationsJson()), Meta: raw(r.GetMetaJson()),
	}
}

func linkToPB(r *protov1.Resource) *pluginv1.ResourceLink {
	return &pluginv1.ResourceLink{
		Uri: r.URI, Name: r.Name, Title: r.Title, Description: r.Description,
		MimeType: r.MIMEType, Size: r.Size,
	}
}

func linkFromPB(r *pluginv1.ResourceLink) *protov1.Resource {
	return &protov1.Resource{
		URI: r.GetUri(), Name: r.GetName(), Title: r.GetTitle(), Description: r.GetDescription(),
		MIMEType: r.GetMimeType(), Size: r.GetSize(),
	}
}

func templateToPB(t protov1.ResourceTemplate) *pluginv1.ResourceTemplate {
	return &pluginv1.ResourceTemplate{
		UriTemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description,
		MimeType: t.MIMEType, AnnotationsJson: t.Annotations, MetaJson: t.Meta,
	}
}

func templateFromPB(t *pluginv1.ResourceTemplate) protov1.ResourceTemplate {
	return protov1.ResourceTemplate{
		URITemplate: t.GetUriTemplate(), Name: t.GetName(), Title: t.GetTitle(),
		Description: t.GetDescription(), MIMEType: t.GetMimeType(),
		Annotations: raw(t.GetAnnotationsJson()), Meta: raw(t.GetMetaJson()),
	}
}

func contentsToPB(c *protov1.ResourceContents) *pluginv1.ResourceContents {
	out := &pluginv1.ResourceContents{Uri: c.URI, MimeType: c.MIMEType, MetaJson: c.Meta}
	if c.IsBlob() {
		out.Body = &pluginv1.ResourceContents_Blob{Blob: c.Blob}
	} else {
		out.Body = &pluginv1.ResourceContents_Text{Text: validText(c.Text)}
	}
	return out
}

func contentsFromPB(c *pluginv1.ResourceContents) *protov1.ResourceContents {
	out := &protov1.ResourceContents{URI: c.GetUri(), MIMEType: c.GetMimeType(), Meta: raw(c.GetMetaJson())}
	if b, ok := c.GetBody().(*pluginv1.ResourceContents_Blob); ok {
		out.Blob = b.Blob
		if out.Blob == nil {
			out.Blob = []byte{}
		}
	} else {
		out.Text = c.GetText()
	}
	return out
}

// validText is text as protobuf may carry it: a string field must be UTF-8,
// and one that is not fails the whole message, so a tool whose text holds a
// stray byte (a file read as text, output cut mid-character) would answer
// with a marshalling error instead of its result. Each bad byte becomes
// U+FFFD, as a JSON encoder writes it; valid text is returned as it is.
func validText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func contentToPB(c *protov1.Content) *pluginv1.Content {
	out := &pluginv1.Content{AnnotationsJson: c.Annotations, MetaJson: c.Meta}
	switch c.Kind {
	case protov1.KindImage:
		out.Kind = &pluginv1.Content_Image{Image: &pluginv1.ImageContent{Data: c.Data, MimeType: c.MIMEType}}
	case protov1.KindAudio:
		out.Kind = &pluginv1.Content_Audio{Audio: &pluginv1.AudioContent{Data: c.Data, MimeType: c.MIMEType}}
	case protov1.KindResource:
		res := c.Resource
		if res == nil {
			res = &protov1.ResourceContents{}
		}
		out.Kind = &pluginv1.Content_Resource{Resource: &pluginv1.EmbeddedResource{Resource: contentsToPB(res)}}
	case protov1.KindResourceLink:
		link := c.Link
		if link == nil {
			link = &protov1.Resource{}
		}
		out.Kind = &pluginv1.Content_ResourceLink{ResourceLink: linkToPB(link)}
	default:
		out.Kind = &pluginv1.Content_Text{Text: &pluginv1.TextContent{Text: validText(c.Text)}}
	}
	return out
}

func contentFromPB(c *pluginv1.Content) protov1.Content {
	out := protov1.Content{Annotations: raw(c.GetAnnotationsJson()), Meta: raw(c.GetMetaJson())}
	switch k := c.GetKind().(type) {
	case *pluginv1.Content_Image:
		out.Kind, out.Data, out.MIMEType = protov1.KindImage, k.Image.GetData(), k.Image.GetMimeType()
	case *pluginv1.Content_Audio:
		out.Kind, out.Data, out.MIMEType = protov1.KindAudio, k.Audio.GetData(), k.Audio.GetMimeType()
	case *pluginv1.Content_Resource:
		out.Kind, out.Resource = protov1.KindResource, contentsFromPB(k.Resource.GetResource())
	case *pluginv1.Content_ResourceLink:
		out.Kind, out.Link = protov1.KindResourceLink, linkFromPB(k.ResourceLink)
	default:
		out.Kind, out.Text = protov1.KindText, c.GetText().GetText()
	}
	return out
}

func resultToPB(r *protov1.Result) *pluginv1.CallToolResult {
	out := &pluginv1.CallToolResult{
		Content:               make([]*pluginv1.Content, len(r.Content)),
		StructuredContentJson: r.StructuredContent, IsError: r.IsError, MetaJson: r.Meta,
	}
	for i := range r.Content {
		out.Content[i] = contentToPB(&r.Content[i])
	}
	return out
}

func resultFromPB(r *pluginv1.CallToolResult) *protov1.Result {
	out := &protov1.Result{
		Content:           make([]protov1.Content, len(r.GetContent())),
		StructuredContent: raw(r.GetStructuredContentJson()), IsError: r.GetIsError(), Meta: raw(r.GetMetaJson()),
	}
	for i, c := range r.GetContent() {
		out.Content[i] = contentFromPB(c)
	}
	return out
}

func promptToPB(p protov1.Prompt) *pluginv1.Prompt {
	out := &pluginv1.Prompt{Name: p.Name, Title: p.Title, Description: p.Description, MetaJson: p.Meta}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, &pluginv1.PromptArgument{
			Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required,
		})
	}
	return out
}

func promptFromPB(p *pluginv1.Prompt) protov1.Prompt {
	out := protov1.Prompt{Name: p.GetName(), Title: p.GetTitle(), Description: p.GetDescription(), Meta: raw(p.GetMetaJson())}
	for _, a := range p.GetArguments() {
		out.Arguments = append(out.Arguments, protov1.PromptArgument{
			Name: a.GetName(), Title: a.GetTitle(), Description: a.GetDescription(), Required: a.GetRequired(),
		})
	}
	return out
}

func logToPB(l *protov1.LogMessage) *pluginv1.LogMessage {
	return &pluginv1.LogMessage{Level: l.Level, Logger: l.Logger, DataJson: l.Data}
}

func logFromPB(l *pluginv1.LogMessage) *protov1.LogMessage {
	return &protov1.LogMessage{Level: l.GetLevel(), Logger: l.GetLogger(), Data: raw(l.GetDataJson())}
}

func eventToPB(e protov1.Event) *pluginv1.WatchEvent {
	switch e.Kind {
	case protov1.EventToolsChanged:
		return &pluginv1.WatchEvent{Event: &pluginv1.WatchEvent_ToolsChanged{ToolsChanged: &pluginv1.ListChanged{}}}
	case protov1.EventResourcesChanged:
		return &pluginv1.WatchEvent{Event: &pluginv1.WatchEvent_ResourcesChanged{ResourcesChanged: &pluginv1.ListChanged{}}}
	case protov1.EventPromptsChanged:
		return &pluginv1.WatchEvent{Event: &pluginv1.WatchEvent_PromptsChanged{PromptsChanged: &pluginv1.ListChanged{}}}
	case protov1.EventResourceUpdated:
		return &pluginv1.WatchEvent{Event: &pluginv1.WatchEvent_ResourceUpdated{ResourceUpdated: &pluginv1.ResourceUpdated{Uri: e.URI}}}
	case protov1.EventLog:
		if e.Log != nil {
			return &pluginv1.WatchEvent{Event: &pluginv1.WatchEvent_Log{Log: logToPB(e.Log)}}
		}
	case protov1.EventTaskStatus:
		if e.Task != nil {
			return &pluginv1.WatchEvent{Event: &pluginv1.WatchEvent_TaskStatus{TaskStatus: taskToPB(*e.Task)}}
		}
	case protov1.EventTaskInput:
		if in := e.TaskInput; in != nil {
			return &pluginv1.WatchEvent{Event: &pluginv1.WatchEvent_TaskInput{TaskInput: &pluginv1.TaskInput{
				TaskId: in.TaskID, Key: in.Key, Method: in.Method, ParamsJson: in.Params, Withdrawn: in.Withdrawn}}}
		}
	}
	return nil
}

func eventFromPB(e *pluginv1.WatchEvent) (protov1.Event, bool) {
	switch k := e.GetEvent().(type) {
	case *pluginv1.WatchEvent_ToolsChanged:
		return protov1.Event{Kind: protov1.EventToolsChanged}, true
	case *pluginv1.WatchEvent_ResourcesChanged:
		return protov1.Event{Kind: protov1.EventResourcesChanged}, true
	case *pluginv1.WatchEvent_PromptsChanged:
		return protov1.Event{Kind: protov1.EventPromptsChanged}, true
	case *pluginv1.WatchEvent_ResourceUpdated:
		return protov1.Event{Kind: protov1.EventResourceUpdated, URI: k.ResourceUpdated.GetUri()}, true
	case *pluginv1.WatchEvent_Log:
		return protov1.Event{Kind: protov1.EventLog, Log: logFromPB(k.Log)}, true
	case *pluginv1.WatchEvent_TaskStatus:
		t := taskFromPB(k.TaskStatus)
		return protov1.Event{Kind: protov1.EventTaskStatus, Task: &t}, true
	case *pluginv1.WatchEvent_TaskInput:
		in := k.TaskInput
		return protov1.Event{Kind: protov1.EventTaskInput, TaskInput: &protov1.TaskInput{
			TaskID: in.GetTaskId(), Key: in.GetKey(), Method: in.GetMethod(), Params: raw(in.GetParamsJson()), Withdrawn: in.GetWithdrawn()}}, true
	}
	return protov1.Event{}, false
}
