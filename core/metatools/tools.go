package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Tools returns the eleven meta-tools: the whole of the gateway's tools/list.
// A meta-tool's own argument errors come back as isError results naming the
// argument.
func (h *Handlers) Tools() []Tool {
	tools := []Tool{
		{Name: "list_tools", Description: "List the tools of every plugin (or of one), a page at a time, with each plugin's state (running, lazy, starting, restarting, failed and why). Prefer filter_tools to find a tool for a task.",
			InputSchema: schema(`"plugin":{"type":"string","description":"Only this plugin's tools."},"limit":{"type":"integer","minimum":1,"maximum":1000,"default":50},"offset":{"type":"integer","minimum":0,"default":0}`),
			Annotations: readOnly, Handle: h.listTools},
		{Name: "filter_tools", Description: h.filterToolsDescription(), LiveDescription: h.filterToolsDescription,
			InputSchema: schema(`"query":{"type":"string","description":"What you want to do, in your own words, e.g. \"list pods\" or \"read a file\"."},"pattern":{"type":"string","description":"Glob on tool names, e.g. \"x_k8s_*\"."},"description_filter":{"type":"string","description":"Substring the description must contain."},"labels":{"type":"object","additionalProperties":{"type":"string"},"description":"Every key=value must match, e.g. {\"category\":\"observability\"}."},"plugin":{"type":"string"},"case_sensitive":{"type":"boolean","default":false},"include_schema":{"type":"boolean","default":false,"description":"Include each tool's input schema."},"limit":{"type":"integer","minimum":1,"maximum":1000,"default":5},"offset":{"type":"integer","minimum":0,"default":0}`),
			Annotations: readOnly, Handle: h.filterTools},
		{Name: "describe_tool", Description: "Show one tool in full: description, input and output schema, annotations, its plugin's state, a ready call_tool example, and for a tool that may delete data its destructive_policy (confirm: the user is asked first; deny: refused).",
			InputSchema: schema(`"name":{"type":"string","description":"Tool name, e.g. x_everything_echo."}`, "name"),
			Annotations: readOnly, Handle: h.describeTool},
		{Name: "call_tool", Description: "Run a tool by name with its arguments and return its result as the tool gave it. Arguments are checked against the tool's schema first; a tool that may delete data may first need the user's confirmation.",
			InputSchema: schema(`"name":{"type":"string","description":"Tool name from filter_tools or list_tools (x_* plugin tools or core_* tools)."},"arguments":{"type":"object","description":"The tool's arguments, as describe_tool shows them."},`+fmt.Sprintf(`"timeout_seconds":{"type":"number","minimum":%g,"maximum":%g,"description":"Deadline for this call instead of the plugin's default."}`, minCallTimeout.Seconds(), h.maxCallTimeout().Seconds()), "name"),
			Annotations: protov1.Annotations{OpenWorld: truth(true)}, Handle: h.callTool},
		{Name: "list_core_tools", Description: "List the gateway's own core_* tools (plugin status, start, stop, restart, events), called through call_tool.",
			InputSchema: schema(`"include_schema":{"type":"boolean","default":false}`),
			Annotations: readOnly, Handle: h.listCoreTools},
		{Name: "list_resources", Description: "List the resources and resource templates plugins serve, a page at a time.",
			InputSchema: schema(`"plugin":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":1000,"default":50},"offset":{"type":"integer","minimum":0,"default":0}`),
			Annotations: readOnly, Handle: h.listResources},
		{Name: "describe_resource", Description: "Show a resource's metadata: name, description, MIME type, size and plugin.",
			InputSchema: schema(`"uri":{"type":"string"}`, "uri"), Annotations: readOnly, Handle: h.describeResource},
		{Name: "get_resource", Description: "Read a resource's contents (text or binary) by URI.",
			InputSchema: schema(`"uri":{"type":"string"}`, "uri"), Annotations: readOnly, Handle: h.getResource},
		{Name: "list_prompts", Description: "List the prompt templates plugins serve, a page at a time.",
			InputSchema: schema(`"plugin":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":1000,"default":50},"offset":{"type":"integer","minimum":0,"default":0}`),
			Annotations: readOnly, Handle: h.listPrompts},
		{Name: "describe_prompt", Description: "Show a prompt template and the arguments it takes.",
			InputSchema: schema(`"name":{"type":"string"}`, "name"), Annotations: readOnly, Handle: h.describePrompt},
		{Name: "get_prompt", Description: "Render a prompt template with its arguments into messages.",
			InputSchema: schema(`"name":{"type":"string"},"arguments":{"type":"object","additionalProperties":{"type":"string"}}`, "name"),
			Annotations: readOnly, Handle: h.getPrompt},
	}
	for i := range tools {
		tools[i].Handle = argumentErrorsAsResults(tools[i].Handle)
	}
	return tools
}

// filterToolsBase is filter_tools' description before the plugins' names.
const filterToolsBase = "Find tools for a task: free-text query ranked best-first (typos and synonyms are fine; name a plugin to search only its tools), or filter by name glob pattern, description substring, labels or plugin. Returns name, score and summary, and says when nothing matches well; then use describe_tool and call_tool."

func (h *Handlers) listCoreTools(_ context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		IncludeSchema bool `json:"include_schema"`
	}
	if err := decode("list_core_tools", raw, &in); err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, t := range h.coreTools() {
		line := map[string]any{"name": t.Name, "summary": summary(t.Description)}
		if in.IncludeSchema {
			line["input_schema"] = t.InputSchema
		}
		out = append(out, line)
	}
	return jsonResult(map[string]any{"tools": out, "total": len(out)})
}

// argumentErrorsAsResults answers a meta-tool's argument errors as isError
// results the model can act on.
func argumentErrorsAsResults(f func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error)) func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
	return func(ctx context.Context, raw json.RawMessage, ev protov1.CallEvents) (*protov1.Result, error) {
		res, err := f(ctx, raw, ev)
		var ae *ArgumentError
		if errors.As(err, &ae) {
			return errorResult("%v", ae), nil
		}
		return res, err
	}
}

func schema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if len(required) == 0 {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `,"additionalProperties":false}`)
}
