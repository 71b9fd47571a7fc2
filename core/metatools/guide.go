package metatools

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/search"
	"github.com/toolgate/toolgate/core/supervisor"
)

// An assistant searches only for what it believes is there. The guide tells
// it, in the server instructions and in filter_tools' description, which
// plugins sit behind the gateway and what each one's tools are about. It is
// rebuilt when the catalog changes, never per request: summarising 100,000
// tools reads every name.

// guideBudget bounds the guide's length in characters: about 300 tokens at
// the usual four characters a token, leaving room within 400 for the
// plugin names in filter_tools' description.
const guideBudget = 1200

// wordsPerPlugin is how many characteristic words name what a plugin offers.
const wordsPerPlugin = 6

// downBudget bounds the part of the instructions that names the plugins
// that are down.
const downBudget = 320

// guide holds the current guidance texts, rebuilt on catalog changes and
// when a plugin goes down or comes back.
type guide struct {
	cat      *catalog.Catalog
	down     func() []downPlugin
	mu       sync.Mutex // one rebuild at a time, so the last one stays
	text     atomic.Pointer[guideText]
	onChange atomic.Pointer[func()]
}

type guideText struct {
	instructions string // the server instructions
	plugins      string // one line for filter_tools' description
	summaries    []search.PluginSummary
	down         []downPlugin
}

// downPlugin is a plugin an assistant cannot use now: it failed, or the
// operator stopped it. Its tools, if the catalog still lists them, fail.
type downPlugin struct {
	name, state, reason string
}

func newGuide(cat *catalog.Catalog, down func() []downPlugin) *guide {
	g := &guide{cat: cat, down: down}
	cat.OnChange(func(catalog.Change) { g.rebuild() })
	return g
}

// rebuild brings the texts up to date and tells the listener when what an
// assistant reads has changed: most catalog changes (a plugin restarting
// with the same tools) change nothing it reads.
func (g *guide) rebuild() {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := buildGuide(g.cat.Index().PluginSummaries(wordsPerPlugin), g.down())
	old := g.text.Swap(t)
	if old != nil && old.instructions == t.instructions && old.plugins == t.plugins {
		return
	}
	if f := g.onChange.Load(); f != nil {
		(*f)()
	}
}

func (g *guide) current() *guideText {
	if t := g.text.Load(); t != nil {
		return t
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := g.text.Load(); t != nil {
		return t
	}
	t := buildGuide(g.cat.Index().PluginSummaries(wordsPerPlugin), g.down())
	g.text.Store(t)
	return t
}

// pluginsChanged rebuilds the texts when the plugins that are down are not
// the ones the texts name; a plugin going lazy or starting changes nothing.
func (g *guide) pluginsChanged() {
	if slices.Equal(g.current().down, g.down()) {
		return
	}
	g.rebuild()
}

func buildGuide(sums []search.PluginSummary, down []downPlugin) *guideText {
	t := &guideText{summaries: sums, down: down}
	var b strings.Builder
	b.WriteString("This gateway puts the tools of its plugins behind a few meta-tools. " +
		"Find a tool with filter_tools {\"query\": \"what you want to do\"} (add \"plugin\" to search one plugin), " +
		"read its schema with describe_tool, run it with call_tool.")
	downText, downNames := downLines(down)
	if len(sums) == 0 {
		b.WriteString(" No plugin has tools yet; list_tools shows each plugin's state.")
		b.WriteString(downText)
		t.instructions = b.String()
		t.plugins = "No plugin has tools yet." + downNames
		return t
	}
	b.WriteString(" Plugins and what their tools are about:")
	names := make([]string, 0, len(sums))
	for i, s := range sums {
		line := fmt.Sprintf("\n- %s (%d tools): %s", s.Plugin, s.Tools, strings.Join(s.Words, ", "))
		if b.Len()+len(line) > guideBudget-60-len(downText) {
			fmt.Fprintf(&b, "\n- and %d more plugins; list_tools shows them all.", len(sums)-i)
			break
		}
		b.WriteString(line)
		names = append(names, s.Plugin)
	}
	b.WriteString(downText)
	t.instructions = b.String()
	t.plugins = "Plugins: " + strings.Join(names, ", ") + "."
	if len(names) < len(sums) {
		t.plugins = fmt.Sprintf("Plugins: %s and %d more.", strings.Join(names, ", "), len(sums)-len(names))
	}
	t.plugins += downNames
	return t
}

// downLines names the plugins that are down, with why, for the
// instructions (within downBudget), and by name for filter_tools'
// description.
func downLines(down []downPlugin) (text, names string) {
	if len(down) == 0 {
		return "", ""
	}
	var b strings.Builder
	b.WriteString("\nNot available now (calls to their tools fail; list_tools shows why):")
	shown := make([]string, 0, len(down))
	for i, d := range down {
		line := "\n- " + d.name + ": " + d.state
		if d.reason != "" {
			line += " (" + oneLine(d.reason, 160) + ")"
		}
		if b.Len()+len(line) > downBudget-40 {
			fmt.Fprintf(&b, "\n- and %d more.", len(down)-i)
			break
		}
		b.WriteString(line)
		shown = append(shown, d.name)
	}
	for _, d := range down[len(shown):] {
		shown = append(shown, d.name)
	}
	return b.String(), " Not available now: " + strings.Join(shown, ", ") + "."
}

// oneLine is s on one line, its runs of white space made single spaces,
// shortened to at most n runes, the cut marked.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// PluginsChanged tells the guide that a plugin changed state, so the
// instructions can name the plugins that are down. Call it on every
// supervisor transition; it rebuilds only when that set changes.
func (h *Handlers) PluginsChanged() { h.guide.pluginsChanged() }

// downPlugins are the plugins that failed or were stopped, in config order.
func (h *Handlers) downPlugins() []downPlugin {
	if h.Plugins == nil {
		return nil
	}
	var out []downPlugin
	for _, st := range h.Plugins.Statuses() {
		if st.State == supervisor.Failed || st.State == supervisor.Stopped {
			out = append(out, downPlugin{name: st.Name, state: string(st.State), reason: st.LastError})
		}
	}
	return out
}

// OnGuideChange sets f to run when the instructions or filter_tools'
// description change with the plugins, for the front to tell clients.
func (h *Handlers) OnGuideChange(f func()) { h.guide.onChange.Store(&f) }

// Instructions is the text of the MCP server instructions: how to find
// tools and which plugins offer what.
func (h *Handlers) Instructions() string { return h.guide.current().instructions }

// filterToolsDescription is filter_tools' description with the current
// plugins named, so an assistant that reads only tools/list knows them too.
func (h *Handlers) filterToolsDescription() string {
	return filterToolsBase + " " + h.guide.current().plugins
}

// weakMatch is the share of a request's words below which the best tool is
// a guess rather than a match (see search.Result.Coverage).
const weakMatch = 0.5

// weakAdvice tells an assistant that the best tools only partly match its
// request, and what the gateway does offer instead.
func (h *Handlers) weakAdvice(query string, res search.Result) map[string]any {
	sums := h.guide.current().summaries
	offers := make([]map[string]any, 0, len(sums))
	for _, s := range sums {
		offers = append(offers, map[string]any{"plugin": s.Plugin, "tools": s.Tools, "about": s.Words})
	}
	msg := fmt.Sprintf("No tool matches %q well: the best one answers %.0f%% of its words.", query, 100*res.Coverage)
	if len(res.Hits) == 0 {
		msg = fmt.Sprintf("No tool matches %q.", query)
	}
	msg += " The tools below, if any, are guesses. Rephrase with the words of one of these plugins, or the gateway may have no tool for this."
	down := h.toollessPlugins()
	if len(down) == 0 {
		return map[string]any{"note": msg, "plugins": offers}
	}
	msg += " Plugins whose tools are not known now are listed under \"unavailable\"; the tool may be one of theirs."
	return map[string]any{"note": msg, "plugins": offers, "unavailable": down}
}

// toollessPlugins lists the plugins that bring no tools to the catalog
// because they are not running (failed, stopped, never started), with why:
// a search that misses may be missing one of their tools, and the assistant
// can tell the user what to fix instead of concluding the gateway has none.
func (h *Handlers) toollessPlugins() []pluginLine {
	var out []pluginLine
	for _, pl := range h.pluginLines() {
		if pl.Tools == 0 && pl.State != string(supervisor.Running) {
			out = append(out, pl)
		}
	}
	return out
}

// toollessNote says why a search narrowed to one plugin found none of its
// tools: the plugin holds none now, and its state says what to do.
func (h *Handlers) toollessNote(plugin string) string {
	s, _ := h.Plugins.Get(plugin)
	st := s.Status()
	msg := fmt.Sprintf("Plugin %q has no tools in the catalog: it is %s", plugin, st.State)
	if st.LastError != "" {
		msg += " (" + st.LastError + ")"
	}
	switch st.State {
	case supervisor.Running:
		return msg + " and offers no tools."
	case supervisor.Lazy, supervisor.Stopped:
		return msg + "; core_plugin_start starts it and lists its tools."
	case supervisor.Starting, supervisor.Restarting:
		return msg + "; its tools appear when it runs. Search again shortly."
	default:
		return msg + "; core_plugin_get shows its last error, core_plugin_restart tries again once it is fixed."
	}
}
