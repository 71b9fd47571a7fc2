package metatools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// realCatalogs serves the captured tool lists of real MCP servers (and of
// the kubernetes and prometheus plugins) as lazy plugins that never start:
// what the meta-tools answer depends only on the catalog.
func realCatalogs(t *testing.T, plugins ...string) (*Handlers, *catalog.Catalog) {
	t.Helper()
	cat := catalog.New()
	var specs []supervisor.Spec
	for _, p := range plugins {
		specs = append(specs, supervisor.Spec{Name: p, Path: helloPlugin})
	}
	mgr := supervisor.NewManager(specs, supervisor.ManagerOptions{Catalog: cat, Logger: hclog.NewNullLogger()})
	for _, p := range plugins {
		setTools(t, cat, p)
	}
	return New(cat, mgr, nil, hclog.NewNullLogger()), cat
}

// setTools sets a plugin's tools from a captured catalog
// (testdata/catalogs, {package, version, tools}) or a plugin's tools/list
// answer (testdata/tools).
func setTools(t *testing.T, cat *catalog.Catalog, plugin string) {
	t.Helper()
	var list []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	dir := filepath.Join("..", "search", "testdata")
	if raw, err := os.ReadFile(filepath.Join(dir, "catalogs", plugin+".json")); err == nil {
		var c struct{ Tools json.RawMessage }
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(c.Tools, &list); err != nil {
			t.Fatal(err)
		}
	} else {
		raw, err := os.ReadFile(filepath.Join(dir, "tools", plugin+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
	}
	m := &catalog.Manifest{Info: protov1.Info{Name: plugin}}
	for _, tl := range list {
		m.Tools = append(m.Tools, protov1.Tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
	}
	cat.Set(plugin, m)
}

func toolsOf(h *Handlers) map[string]Tool {
	out := map[string]Tool{}
	for _, tl := range h.Tools() {
		out[tl.Name] = tl
	}
	return out
}

// TestConfigMapsExample: a request in plain words, on the kubernetes
// plugin's real catalog, through the filter_tools handler.
func TestConfigMapsExample(t *testing.T) {
	h, _ := realCatalogs(t, "k8s", "prom")
	_, out := invoke(t, toolsOf(h), "filter_tools", `{"query": "list the config maps in a namespace", "plugin": "k8s"}`)
	tools, _ := out["tools"].([]any)
	if len(tools) == 0 || tools[0].(map[string]any)["name"] != "x_k8s_list_resources" {
		t.Fatalf("filter_tools answered %v, want x_k8s_list_resources first", out["tools"])
	}
	if _, weak := out["note"]; weak {
		t.Errorf("a good match carries a weak-match note: %v", out["note"])
	}
}

// TestGuidanceNamesPlugins: the instructions and filter_tools' description
// name every plugin and what it offers, within 400 tokens together, and
// follow the catalog when a plugin's tools arrive.
func TestGuidanceNamesPlugins(t *testing.T) {
	h, cat := realCatalogs(t, "k8s", "prom", "filesystem", "memory", "everything", "thinking")
	var changes atomic.Int32
	h.OnGuideChange(func() { changes.Add(1) })

	instr := h.Instructions()
	desc := toolsOf(h)["filter_tools"].LiveDescription()
	wants := []string{"resource", "filter_tools"}
	for _, plugin := range []string{"k8s", "prom", "filesystem"} {
		wants = append(wants, fmt.Sprintf("%s (%d tools)", plugin, cat.ToolCount(plugin)))
	}
	for _, want := range wants {
		if !strings.Contains(instr, want) {
			t.Errorf("instructions lack %q:\n%s", want, instr)
		}
	}
	if !strings.Contains(desc, "Plugins: k8s, prom, filesystem, memory, everything, thinking.") &&
		!strings.Contains(desc, "Plugins: everything, filesystem, k8s, memory, prom, thinking.") {
		t.Errorf("filter_tools description does not name the plugins: %s", desc)
	}
	// Four characters a token is the usual estimate for English text.
	if tokens := (len(instr) + len(desc)) / 4; tokens > 400 {
		t.Errorf("guidance is about %d tokens, want at most 400", tokens)
	}

	// Restarting with the same tools changes nothing an assistant reads.
	setTools(t, cat, "prom")
	if n := changes.Load(); n != 0 {
		t.Errorf("a plugin restarting with the same tools announced %d guide changes", n)
	}
	cat.Set("memory", nil)
	if changes.Load() != 1 || strings.Contains(h.Instructions(), "memory (") {
		t.Errorf("after the memory plugin left: %d changes, instructions:\n%s", changes.Load(), h.Instructions())
	}
}

// TestGuidanceKeepsItsBudget: with many plugins the instructions stay
// within budget and say how many are left out.
func TestGuidanceKeepsItsBudget(t *testing.T) {
	h, cat := realCatalogs(t, "k8s")
	for i := range 60 {
		cat.Set("plugin-number-"+string(rune('a'+i%26))+string(rune('a'+i/26)), &catalog.Manifest{Tools: []protov1.Tool{{Name: "do_something_useful", Description: "Does it."}}})
	}
	instr := h.Instructions()
	if len(instr) > guideBudget || !strings.Contains(instr, "more plugins; list_tools shows them all") {
		t.Errorf("instructions of %d characters (budget %d):\n%s", len(instr), guideBudget, instr)
	}
}

// TestWeakMatchSaysSo: a request no tool answers gets a note and the
// plugins on offer, not only the closest unrelated tools.
func TestWeakMatchSaysSo(t *testing.T) {
	h, _ := realCatalogs(t, "k8s", "prom", "filesystem")
	tools := toolsOf(h)
	for _, q := range []string{"book a flight to paris", "zzqx"} {
		_, out := invoke(t, tools, "filter_tools", `{"query": "`+q+`"}`)
		note, _ := out["note"].(string)
		plugins, _ := out["plugins"].([]any)
		if !strings.Contains(note, "No tool matches") || len(plugins) != 3 {
			t.Errorf("filter_tools %q: note %q, plugins %v; want a weak-match note and 3 plugins", q, note, plugins)
		}
	}
	_, out := invoke(t, tools, "filter_tools", `{"query": "read a file"}`)
	if _, weak := out["note"]; weak {
		t.Errorf("filter_tools read a file: weak-match note %v on a good match", out["note"])
	}
}

// TestSearchNamesToollessPlugin: a search narrowed to a plugin that has not
// told its tools yet says so and how to start it, instead of a weak match.
func TestSearchNamesToollessPlugin(t *testing.T) {
	cat := catalog.New()
	mgr := supervisor.NewManager([]supervisor.Spec{{Name: "k8s", Path: helloPlugin}, {Name: "later", Path: helloPlugin}},
		supervisor.ManagerOptions{Catalog: cat, Logger: hclog.NewNullLogger()})
	setTools(t, cat, "k8s")
	h := New(cat, mgr, nil, hclog.NewNullLogger())
	_, out := invoke(t, toolsOf(h), "filter_tools", `{"query": "list the config maps", "plugin": "later"}`)
	note, _ := out["note"].(string)
	if !strings.Contains(note, `Plugin "later" has no tools in the catalog: it is lazy`) || !strings.Contains(note, "core_plugin_start") {
		t.Errorf("filter_tools on a lazy plugin without tools: note %q", note)
	}
	_, out = invoke(t, toolsOf(h), "filter_tools", `{"query": "book a flight to paris"}`)
	down, _ := out["unavailable"].([]any)
	if len(down) != 1 || down[0].(map[string]any)["name"] != "later" {
		t.Errorf("weak match: unavailable %v, want the lazy plugin without tools", down)
	}
}

// TestGuidanceNamesDownPlugins: a plugin that failed is named in the
// instructions with why, and in filter_tools' description, so an assistant
// asked for what it serves can say why it cannot; once it is fixed it is
// no longer named.
func TestGuidanceNamesDownPlugins(t *testing.T) {
	cat := catalog.New()
	mgr := supervisor.NewManager([]supervisor.Spec{
		{Name: "k8s", Path: helloPlugin},
		{Name: "broken", Path: helloPlugin, AutoStart: true, Config: json.RawMessage(`{"nonsense":1}`)},
	}, supervisor.ManagerOptions{Catalog: cat, Logger: hclog.NewNullLogger(), OnEvent: func(supervisor.Event) {}})
	setTools(t, cat, "k8s")
	h := New(cat, mgr, nil, hclog.NewNullLogger())
	var changes atomic.Int32
	h.OnGuideChange(func() { changes.Add(1) })
	if strings.Contains(h.Instructions(), "Not available") {
		t.Fatalf("instructions name a down plugin before any failed:\n%s", h.Instructions())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); mgr.Wait() }()
	mgr.Run(ctx)
	broken, _ := mgr.Get("broken")
	deadline := time.Now().Add(30 * time.Second)
	for broken.Status().State != supervisor.Failed {
		if time.Now().After(deadline) {
			t.Fatalf("plugin broken did not fail on its config: %+v", broken.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.PluginsChanged()
	instr := h.Instructions()
	desc := toolsOf(h)["filter_tools"].LiveDescription()
	if !strings.Contains(instr, "Not available now") || !strings.Contains(instr, "- broken: failed (") ||
		!strings.Contains(instr, "nonsense") || !strings.Contains(desc, "Not available now: broken.") {
		t.Errorf("after a config failure:\ninstructions:\n%s\ndescription: %s", instr, desc)
	}
	if changes.Load() != 1 {
		t.Errorf("%d guide changes announced, want 1", changes.Load())
	}
	h.PluginsChanged() // nothing new: no rebuild, no announcement
	if changes.Load() != 1 {
		t.Errorf("an unchanged set of down plugins announced a change")
	}
	if tokens := (len(instr) + len(desc)) / 4; tokens > 400 {
		t.Errorf("guidance is about %d tokens, want at most 400", tokens)
	}
}
