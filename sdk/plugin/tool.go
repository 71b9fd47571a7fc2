package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// ToolOption adjusts a tool's definition.
type ToolOption func(*protov1.Tool)

func ptr(b bool) *bool { return &b }

// ReadOnly marks a tool that changes nothing; the gateway may retry it after a
// plugin crash.
func ReadOnly() ToolOption {
	return func(t *protov1.Tool) { t.Annotations.ReadOnly, t.Annotations.Destructive = ptr(true), ptr(false) }
}

// Destructive marks a tool that may destroy data.
func Destructive() ToolOption {
	return func(t *protov1.Tool) { t.Annotations.ReadOnly, t.Annotations.Destructive = ptr(false), ptr(true) }
}

// Additive marks a tool that changes things but only adds to them (creates a
// note, appends a line): not read-only, and not destructive. MCP counts a
// tool that is not read-only as destructive unless told otherwise, so a tool
// with neither option is shown to clients as one that may destroy data.
func Additive() ToolOption {
	return func(t *protov1.Tool) { t.Annotations.ReadOnly, t.Annotations.Destructive = ptr(false), ptr(false) }
}

// Idempotent marks a tool that can be repeated with the same effect.
func Idempotent() ToolOption { return func(t *protov1.Tool) { t.Annotations.Idempotent = ptr(true) } }

// OpenWorld marks a tool that reaches outside systems.
func OpenWorld() ToolOption { return func(t *protov1.Tool) { t.Annotations.OpenWorld = ptr(true) } }

// Title sets a human-readable title.
func Title(title string) ToolOption {
	return func(t *protov1.Tool) { t.Title, t.Annotations.Title = title, title }
}

// Labels adds search facets (e.g. category=observability).
func Labels(labels map[string]string) ToolOption {
	return func(t *protov1.Tool) {
		if t.Labels == nil {
			t.Labels = map[string]string{}
		}
		for k, v := range labels {
			t.Labels[k] = v
		}
	}
}

// OutputSchemaOf declares the tool's structured output, derived from the type
// of v (a struct value or pointer).
func OutputSchemaOf(v any) ToolOption {
	return func(t *protov1.Tool) { t.OutputSchema = mustSchema(v) }
}

// NewTool defines a tool whose arguments decode into A. The input schema is
// derived from A: field names from `json` tags, `description:"..."` and
// `enum:"a,b"` tags (values of the field's type), fields without omitempty or
// a default required. A field the call leaves out holds its `default:"..."`
// when the handler runs. A is usually a struct; use struct{} for a tool
// without arguments.
func NewTool[A any](name, description string, fn func(ctx context.Context, call *Call, args A) (*Result, error), opts ...ToolOption) Tool {
	var zero A
	def := protov1.Tool{Name: name, Description: description, InputSchema: toolSchema(name, zero)}
	for _, o := range opts {
		o(&def)
	}
	return Tool{Def: def, Handler: func(ctx context.Context, call *Call) (*Result, error) {
		var args A
		if err := decodeArgs(call.Arguments, &args); err != nil {
			return Errorf("invalid arguments for %s: %v", name, err), nil
		}
		return fn(ctx, call, args)
	}}
}

// NewRawTool defines a tool with a hand-written input schema and raw JSON
// arguments, for plugins whose tools are only known at run time.
func NewRawTool(def protov1.Tool, fn func(ctx context.Context, call *Call) (*Result, error)) Tool {
	return Tool{Def: def, Handler: fn}
}

// decodeArgs decodes a call's arguments into A, defaults first, and words
// what is wrong in the arguments' terms.
func decodeArgs(raw json.RawMessage, into any) error {
	problems := decodeObject(raw, into, true)
	if len(problems) == 0 {
		return nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		switch {
		case p.unknown && p.near != "":
			msgs[i] = fmt.Sprintf("unknown argument %q; did you mean %q?", p.path, p.near)
		case p.unknown:
			msgs[i] = fmt.Sprintf("unknown argument %q", p.path)
		case p.path == "":
			msgs[i] = "arguments: " + p.message
		default:
			msgs[i] = fmt.Sprintf("argument %q: %s", p.path, p.message)
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

// toolSchema is mustSchema for a tool's arguments: a struct tag an author got
// wrong stops the plugin at its first run, and the message names the tool.
func toolSchema(tool string, v any) json.RawMessage {
	s, err := SchemaOf(v)
	if err != nil {
		panic(fmt.Sprintf("toolgate plugin: tool %q: arguments: %v", tool, err))
	}
	return s
}

func mustSchema(v any) json.RawMessage {
	s, err := SchemaOf(v)
	if err != nil {
		panic(fmt.Sprintf("toolgate plugin: %v", err))
	}
	return s
}
