// Package metatools implements what an assistant sees: the eleven meta-tools
// through which it discovers, describes and calls every plugin's tools, and
// the core_* tools that manage plugins. It knows nothing of MCP transports.
package metatools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Tool is one meta-tool or core tool.
type Tool struct {
	Name        string
	Description string
	// LiveDescription, when set, returns the description as it stands now,
	// for a tool whose description names the plugins; Description is its
	// value at the time Tools was called.
	LiveDescription func() string
	InputSchema     json.RawMessage
	Annotations     protov1.Annotations
	Handle          func(ctx context.Context, args json.RawMessage, events protov1.CallEvents) (*protov1.Result, error)
}

// Handlers serve the meta-tools over a catalog and the plugins' supervisors.
type Handlers struct {
	Catalog *catalog.Catalog
	Plugins *supervisor.Manager
	// CallTimeout is the deadline of a call to the plugin, unless the call
	// itself asks for another.
	CallTimeout func(plugin string) time.Duration
	// MaxCallTimeout bounds the deadline a call may ask for with
	// timeout_seconds (DefaultMaxCallTimeout when 0).
	MaxCallTimeout time.Duration
	Logger         hclog.Logger
	// Observer, when set, hears of every call_tool and how it ended.
	Observer CallObserver
	// Permissions says what call_tool does with a plugin's tools that may
	// delete or overwrite data (permit.go); nil runs them.
	Permissions func(plugin string) Permission

	core  map[string]*Tool
	guide *guide
}

// New returns the handlers.
func New(cat *catalog.Catalog, plugins *supervisor.Manager, callTimeout func(string) time.Duration, logger hclog.Logger) *Handlers {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	h := &Handlers{Catalog: cat, Plugins: plugins, CallTimeout: callTimeout, Logger: logger}
	h.guide = newGuide(cat, h.downPlugins)
	h.core = map[string]*Tool{}
	for _, t := range h.coreTools() {
		h.core[t.Name] = &t
	}
	return h
}

// ErrArgument is wrapped by errors about a meta-tool's own arguments.
type ArgumentError struct {
	Tool, Argument, Problem string
}

func (e *ArgumentError) Error() string {
	if e.Argument == "" {
		return fmt.Sprintf("%s: %s", e.Tool, e.Problem)
	}
	return fmt.Sprintf("%s: argument %q: %s", e.Tool, e.Argument, e.Problem)
}

// decode reads a meta-tool's arguments strictly: unknown or mistyped
// arguments are named, never ignored.
func decode(tool string, raw json.RawMessage, into any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	// One strict pass serves the usual, valid call; only a failure pays for
	// the slower pass below that names what is wrong.
	if len(raw) > 0 && raw[0] == '{' {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if dec.Decode(into) == nil && !dec.More() {
			return nil
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return &ArgumentError{Tool: tool, Problem: "arguments must be a JSON object"}
	}
	known := jsonFields(into)
	for k := range fields {
		if !known[k] {
			return &ArgumentError{Tool: tool, Argument: k, Problem: "unknown argument; it takes " + knownList(known)}
		}
	}
	if err := json.Unmarshal(raw, into); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &ArgumentError{Tool: tool, Argument: te.Field + entryAt(into, te, fields[te.Field]), Problem: typeProblem(te)}
		}
		return &ArgumentError{Tool: tool, Problem: err.Error()}
	}
	return nil
}

// summary is the first sentence of a description, at most 120 characters.
func summary(desc string) string {
	desc = strings.TrimSpace(desc)
	if i := strings.IndexAny(desc, "\n"); i >= 0 {
		desc = desc[:i]
	}
	for i, r := range desc {
		if (r == '.' || r == '!' || r == '?') && sentenceEnds(desc, i) {
			desc = desc[:i+1]
			break
		}
	}
	if r := []rune(desc); len(r) > 120 {
		desc = strings.TrimSpace(string(r[:119])) + "…"
	}
	return desc
}

// abbreviations end in a full stop that ends no sentence ("…, e.g. pods").
var abbreviations = map[string]bool{"e.g.": true, "i.e.": true, "cf.": true, "vs.": true, "incl.": true, "approx.": true, "esp.": true, "resp.": true, "a.k.a.": true}

// sentenceEnds reports whether the mark at desc[i] ends a sentence: it is
// followed by the end or by a space, then not by a lower-case word or a
// number, and it is not the full stop of an abbreviation.
func sentenceEnds(desc string, i int) bool {
	rest := desc[i+1:]
	if rest == "" {
		return true
	}
	if !unicode.IsSpace(rune(rest[0])) {
		return false
	}
	if next, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(rest, unicode.IsSpace)); unicode.IsLower(next) || unicode.IsDigit(next) {
		return false
	}
	word := desc[strings.LastIndexFunc(desc[:i], unicode.IsSpace)+1 : i+1]
	return !abbreviations[strings.ToLower(strings.TrimLeft(word, "(\"'"))]
}

// jsonResult answers v as structured content with the same JSON as text.
func jsonResult(v any) (*protov1.Result, error) {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false) // placeholders like <name> stay readable
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := bytes.TrimSpace(compact.Bytes())
	var pretty bytes.Buffer
	_ = json.Indent(&pretty, b, "", "  ")
	return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: pretty.String()}}, StructuredContent: b}, nil
}

// errorResult is a failed answer the model reads.
func errorResult(format string, args ...any) *protov1.Result {
	return &protov1.Result{IsError: true, Content: []protov1.Content{{Kind: protov1.KindText, Text: fmt.Sprintf(format, args...)}}}
}

func truth(b bool) *bool { return &b }

var readOnly = protov1.Annotations{ReadOnly: truth(true), Destructive: truth(false), Idempotent: truth(true), OpenWorld: truth(false)}
