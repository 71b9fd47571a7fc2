package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/search"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/internal/similar"
	"github.com/toolgate/toolgate/sdk/protov1"
)

type toolLine struct {
	Name    string   `json:"name"`
	Summary string   `json:"summary"`
	Plugin  string   `json:"plugin"`
	Score   *float64 `json:"score,omitempty"`
	State   string   `json:"state,omitempty"`
	Schema  any      `json:"input_schema,omitempty"`
}

type pluginLine struct {
	Name      string `json:"name"`
	State     string `json:"state"`
	Tools     int    `json:"tools"`
	LastError string `json:"last_error,omitempty"`
	NextTry   string `json:"next_try,omitempty"`
	// Collisions are the plugin's tools, prompts or resources left out
	// because their names were taken.
	Collisions []string `json:"collisions,omitempty"`
}

func (h *Handlers) pluginLines() []pluginLine {
	var out []pluginLine
	for _, st := range h.Plugins.Statuses() {
		pl := pluginLine{Name: st.Name, State: string(st.State), Tools: h.Catalog.ToolCount(st.Name), LastError: st.LastError,
			Collisions: h.Catalog.Collisions(st.Name)}
		if !st.NextTry.IsZero() {
			pl.NextTry = st.NextTry.UTC().Format("2006-01-02T15:04:05Z")
		}
		out = append(out, pl)
	}
	return out
}

func (h *Handlers) state(plugin string) string {
	if s, ok := h.Plugins.Get(plugin); ok {
		return string(s.Status().State)
	}
	return "unknown"
}

func (h *Handlers) listTools(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		Plugin string `json:"plugin"`
		Limit  *int   `json:"limit"`
		Offset *int   `json:"offset"`
	}
	if err := decode("list_tools", raw, &in); err != nil {
		return nil, err
	}
	if in.Plugin != "" {
		if _, ok := h.Plugins.Get(in.Plugin); !ok {
			return nil, h.unknownPlugin("list_tools", in.Plugin)
		}
	}
	limit, offset, err := paging("list_tools", in.Limit, in.Offset, 50)
	if err != nil {
		return nil, err
	}
	h.awaitFirstListing(ctx, in.Plugin)
	tools := h.Catalog.Tools(in.Plugin)
	lo, hi := min(offset, len(tools)), min(offset+limit, len(tools))
	lines := make([]toolLine, 0, hi-lo)
	for _, t := range tools[lo:hi] {
		lines = append(lines, toolLine{Name: t.ID, Summary: summary(t.Def.Description), Plugin: t.Plugin})
	}
	out := map[string]any{
		"tools": lines, "total": len(tools), "offset": offset, "truncated": hi < len(tools), "plugins": h.pluginLines(),
	}
	if note := pastEnd(offset, len(tools)); note != "" {
		out["note"] = note
	}
	return jsonResult(out)
}

func (h *Handlers) unknownPlugin(tool, name string) error {
	return &ArgumentError{Tool: tool, Argument: "plugin", Problem: "no plugin named " + quote(clip.Name(name)) + "; plugins: " + strings.Join(h.Plugins.Names(), ", ")}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// MaxQueryLen bounds a filter_tools query, in characters. A request in words is far
// shorter; ranking a query grows faster than its length (a single word of
// 20,000 letters takes seconds), so a huge one would hold the call, and a
// CPU, for minutes.
const MaxQueryLen = 1000

// firstListingWait bounds how long a listing or search waits for plugins that have
// not yet told their tools (the first moments after the gateway starts, or
// a lazy plugin with no stored list being started to learn it). A plugin
// slower than this (an npx download, say) is then listed as not available.
const firstListingWait = 10 * time.Second

// awaitFirstListing waits, up to firstListingWait, for the plugins in a
// search's scope (plugin, or all of them) that are starting and have not
// yet told their tools, so a search right after the gateway starts does
// not answer "no tool matches" for a tool that is a moment away. Once every
// plugin has told, it costs a look at each plugin's catalog entry.
func (h *Handlers) awaitFirstListing(ctx context.Context, plugin string) {
	var names []string
	if plugin != "" {
		names = []string{plugin}
	}
	if h.Plugins == nil || !h.Plugins.Untold(names...) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, firstListingWait)
	defer cancel()
	if err := h.Plugins.AwaitCatalog(ctx, names...); err != nil {
		// The plugins that failed are named by the answer's "unavailable".
		h.Logger.Debug("a search went on without plugins that did not start", "error", err)
	}
}

func (h *Handlers) filterTools(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		Pattern           string            `json:"pattern"`
		DescriptionFilter string            `json:"description_filter"`
		Query             string            `json:"query"`
		Labels            map[string]string `json:"labels"`
		Plugin            string            `json:"plugin"`
		CaseSensitive     bool              `json:"case_sensitive"`
		IncludeSchema     bool              `json:"include_schema"`
		Limit             *int              `json:"limit"`
		Offset            *int              `json:"offset"`
	}
	if err := decode("filter_tools", raw, &in); err != nil {
		return nil, err
	}
	if in.Plugin != "" {
		if _, ok := h.Plugins.Get(in.Plugin); !ok {
			return nil, h.unknownPlugin("filter_tools", in.Plugin)
		}
	}
	if n := utf8.RuneCountInString(in.Query); n > MaxQueryLen {
		return nil, &ArgumentError{Tool: "filter_tools", Argument: "query", Problem: fmt.Sprintf(
			"is %d characters long; at most %d: say in a few words what you want to do", n, MaxQueryLen)}
	}
	limit, lo, err := paging("filter_tools", in.Limit, in.Offset, 5)
	if err != nil {
		return nil, err
	}
	h.awaitFirstListing(ctx, in.Plugin)
	res, err := h.Catalog.Index().Search(search.Query{
		Text: in.Query, Pattern: in.Pattern, DescriptionFilter: in.DescriptionFilter, Labels: in.Labels,
		Plugin: in.Plugin, CaseSensitive: in.CaseSensitive, Limit: limit, Offset: lo,
	})
	var pe *search.PatternError
	if errors.As(err, &pe) {
		return nil, &ArgumentError{Tool: "filter_tools", Argument: "pattern", Problem: pe.Error()}
	}
	if err != nil {
		return nil, err
	}
	lines := make([]toolLine, 0, len(res.Hits))
	for _, hit := range res.Hits {
		score := float64(int(hit.Score*1000+0.5)) / 1000
		line := toolLine{Name: hit.Doc.ID, Summary: summary(hit.Doc.Description), Plugin: hit.Doc.Plugin, State: h.state(hit.Doc.Plugin)}
		if in.Query != "" {
			line.Score = &score
		}
		if in.IncludeSchema {
			if t, ok := h.Catalog.Tool(hit.Doc.ID); ok {
				line.Schema = schemaValue(t.Def.InputSchema)
			}
		}
		lines = append(lines, line)
	}
	out := map[string]any{
		"tools": lines, "total": res.Total, "offset": lo, "truncated": lo+len(lines) < res.Total,
	}
	if in.Plugin != "" && h.Catalog.ToolCount(in.Plugin) == 0 {
		out["note"] = h.toollessNote(in.Plugin)
	} else if note := pastEnd(lo, res.Total); note != "" {
		out["note"] = note
	} else if strings.TrimSpace(in.Query) != "" && res.Coverage < weakMatch {
		for k, v := range h.weakAdvice(in.Query, res) {
			out[k] = v
		}
	}
	return jsonResult(out)
}

func schemaValue(s json.RawMessage) any {
	if len(s) == 0 {
		return map[string]any{"type": "object"}
	}
	return json.RawMessage(s)
}

// unknownTool answers a name that is not in the catalog with the closest ones:
// plugin tools, then core tools the name is part of or a typo of. A
// meta-tool's name is no tool of call_tool's, and is told so.
func (h *Handlers) unknownTool(name string) *protov1.Result {
	if slices.Contains(h.metaToolNames(), name) {
		return errorResult("%s is a meta-tool, not a tool behind the gateway: call it directly (tools/call %s), not through call_tool", name, name)
	}
	near := h.Catalog.Index().Closest(name, 3)
	cores := make([]string, 0, len(h.core))
	for core := range h.core {
		cores = append(cores, core)
	}
	sort.Strings(cores)
	for _, core := range cores {
		if strings.Contains(core, strings.ToLower(name)) && len(near) < 3 {
			near = append(near, core)
		}
	}
	if typo := similar.Closest(name, cores); typo != "" && !slices.Contains(near, typo) {
		near = append([]string{typo}, near...)
	}
	if len(near) > 3 {
		near = near[:3]
	}
	if len(near) == 0 {
		return errorResult("unknown tool %q; find tools with filter_tools {\"query\": \"...\"}", clip.Name(name))
	}
	return errorResult("unknown tool %q; did you mean %s? (filter_tools finds tools by what they do)", clip.Name(name), strings.Join(quoteAll(near), ", "))
}

// metaToolNames are the names of the meta-tools, in tools/list order.
func (h *Handlers) metaToolNames() []string {
	var names []string
	for _, t := range h.Tools() {
		names = append(names, t.Name)
	}
	return names
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = quote(n)
	}
	return out
}

func (h *Handlers) describeTool(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := decode("describe_tool", raw, &in); err != nil {
		return nil, err
	}
	if in.Name == "" {
		return nil, &ArgumentError{Tool: "describe_tool", Argument: "name", Problem: "is required"}
	}
	if core, ok := h.core[in.Name]; ok {
		return jsonResult(map[string]any{
			"name": core.Name, "description": core.Description, "input_schema": schemaValue(core.InputSchema),
			"annotations": annotations(core.Annotations), "plugin": "core",
			"example": map[string]any{"tool": "call_tool", "arguments": map[string]any{"name": core.Name, "arguments": h.coreExample(core)}},
		})
	}
	t, missing, _ := h.resolve(ctx, in.Name, 0)
	if t == nil {
		return missing, nil
	}
	out := describe(t, h.Plugins)
	out["labels"] = h.Catalog.Labels(t)
	if p, _ := h.permission(t); p != "" {
		out["destructive_policy"] = p
	}
	return jsonResult(out)
}

func describe(t *catalog.Tool, plugins *supervisor.Manager) map[string]any {
	out := map[string]any{
		"name": t.ID, "original_name": t.Def.Name, "title": t.Def.Title, "description": t.Def.Description,
		"input_schema": schemaValue(t.Def.InputSchema), "annotations": annotations(t.Def.Annotations),
		"plugin":  t.Plugin,
		"example": map[string]any{"tool": "call_tool", "arguments": map[string]any{"name": t.ID, "arguments": Example(t.Def.InputSchema)}},
	}
	if len(t.Def.OutputSchema) > 0 {
		out["output_schema"] = json.RawMessage(t.Def.OutputSchema)
	}
	if s, ok := plugins.Get(t.Plugin); ok {
		st := s.Status()
		ps := map[string]any{"state": st.State}
		if st.LastError != "" {
			ps["last_error"] = st.LastError
		}
		out["plugin_state"] = ps
	}
	return out
}

func annotations(a protov1.Annotations) map[string]any {
	out := map[string]any{"read_only": a.IsReadOnly(), "destructive": a.IsDestructive(), "idempotent": a.IsIdempotent()}
	if a.OpenWorld != nil {
		out["open_world"] = *a.OpenWorld
	}
	if a.Title != "" {
		out["title"] = a.Title
	}
	return out
}
