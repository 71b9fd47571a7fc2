// Package catalog holds what every plugin serves — tools, resources, prompts —
// under the names the gateway exposes, routes each name back to its plugin, and
// keeps the search index in step as plugins come and go.
package catalog

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/core/search"
	"github.com/toolgate/toolgate/internal/similar"
	"github.com/toolgate/toolgate/sdk/protov1"
	"github.com/toolgate/toolgate/sdk/schema"
)

// Tool is one plugin tool under its exposed name.
type Tool struct {
	ID     string // x_<plugin>_<tool>
	Plugin string
	Def    protov1.Tool

	schemaOnce sync.Once
	schema     *schema.Schema
	schemaErr  error
}

// Prompt is one plugin prompt under its exposed name.
type Prompt struct {
	ID     string
	Plugin string
	Def    protov1.Prompt
}

// Resource is one resource and the plugin that serves it.
type Resource struct {
	Plugin string
	Def    protov1.Resource
}

// Template is one resource template and the plugin that serves it.
type Template struct {
	Plugin string
	Def    protov1.ResourceTemplate
	prefix string // the literal part before the first expression
}

// Change says what one plugin's update did to the catalog.
type Change struct {
	Plugin     string
	Added      []string // tool IDs
	Removed    []string
	Collisions []string // problems: names that could not be registered, and why
	// PromptsChanged and ResourcesChanged say the plugin's prompts, or its
	// resources and templates, differ from what the catalog held before.
	PromptsChanged, ResourcesChanged bool
}

// Empty reports whether the change altered nothing.
func (c Change) Empty() bool {
	return len(c.Added) == 0 && len(c.Removed) == 0 && len(c.Collisions) == 0 &&
		!c.PromptsChanged && !c.ResourcesChanged
}

type pluginEntry struct {
	manifest   *Manifest
	collisions []string // what of the manifest could not be registered
	tools      []*Tool  // sorted by ID
	prompts    []*Prompt
	resources  []*Resource
	templates  []*Template
}

// Catalog is safe for concurrent use. Searches go to the index, which never
// waits for a writer.
type Catalog struct {
	mu        sync.RWMutex
	plugins   map[string]*pluginEntry
	labels    map[string]map[string]string // from each plugin's config block
	tools     map[string]*Tool
	prompts   map[string]*Prompt
	resources map[string]*Resource
	index     *search.Index

	listenMu  sync.Mutex
	listeners []func(Change)
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{
		plugins: map[string]*pluginEntry{}, labels: map[string]map[string]string{},
		tools: map[string]*Tool{}, prompts: map[string]*Prompt{}, resources: map[string]*Resource{},
		index: search.NewIndex(),
	}
}

// Index is the search index over every tool.
func (c *Catalog) Index() *search.Index { return c.index }

// SetLabels records the labels an operator gave a plugin; they apply to every
// tool it brings, now and later.
func (c *Catalog) SetLabels(plugin string, labels map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.labels[plugin] = labels
}

// OnChange registers f to be told of every change, after it is made.
func (c *Catalog) OnChange(f func(Change)) {
	c.listenMu.Lock()
	defer c.listenMu.Unlock()
	c.listeners = append(c.listeners, f)
}

// Set replaces everything one plugin serves with m (nil removes it).
func (c *Catalog) Set(plugin string, m *Manifest) Change {
	change := Change{Plugin: plugin}
	entry := &pluginEntry{manifest: m}

	c.mu.Lock()
	old := c.plugins[plugin]
	change.PromptsChanged, change.ResourcesChanged = listsChanged(old, m)
	oldIDs := map[string]bool{}
	if old != nil {
		for _, t := range old.tools {
			oldIDs[t.ID] = true
			delete(c.tools, t.ID)
		}
		for _, p := range old.prompts {
			delete(c.prompts, p.ID)
		}
		for _, r := range old.resources {
			delete(c.resources, r.Def.URI)
		}
	}
	var docs []search.Doc
	if m != nil {
		byID := map[string]string{}
		for _, def := range m.Tools {
			id := ExternalName(plugin, def.Name)
			if prev, dup := byID[id]; dup {
				change.Collisions = append(change.Collisions, fmt.Sprintf(
					"tool %q of plugin %q would be exposed as %s, which tool %q already has; it is not registered", def.Name, plugin, id, prev))
				continue
			}
			// Names of different plugins differ in their x_<plugin>_ prefix,
			// unless a plugin name too long for it was clipped away: the
			// tool already there keeps its name, whatever order plugins start in.
			if other, taken := c.tools[id]; taken {
				change.Collisions = append(change.Collisions, fmt.Sprintf(
					"tool %q of plugin %q would be exposed as %s, which tool %q of plugin %q already has; it is not registered", def.Name, plugin, id, other.Def.Name, other.Plugin))
				continue
			}
			byID[id] = def.Name
			t := &Tool{ID: id, Plugin: plugin, Def: def}
			entry.tools = append(entry.tools, t)
			c.tools[id] = t
			docs = append(docs, c.doc(t))
			if !oldIDs[id] {
				change.Added = append(change.Added, id)
			}
			delete(oldIDs, id)
		}
		for _, def := range m.Prompts {
			p := &Prompt{ID: ExternalName(plugin, def.Name), Plugin: plugin, Def: def}
			if _, dup := c.prompts[p.ID]; dup {
				change.Collisions = append(change.Collisions, fmt.Sprintf("prompt %q of plugin %q collides as %s", def.Name, plugin, p.ID))
				continue
			}
			entry.prompts = append(entry.prompts, p)
			c.prompts[p.ID] = p
		}
		for _, def := range m.Resources {
			if other, dup := c.resources[def.URI]; dup {
				change.Collisions = append(change.Collisions, fmt.Sprintf(
					"resource %s of plugin %q is already served by plugin %q; it is not registered", def.URI, plugin, other.Plugin))
				continue
			}
			r := &Resource{Plugin: plugin, Def: def}
			entry.resources = append(entry.resources, r)
			c.resources[def.URI] = r
		}
		for _, def := range m.Templates {
			if other := c.templateOwner(def.URITemplate, plugin); other != "" {
				change.Collisions = append(change.Collisions, fmt.Sprintf(
					"resource template %s of plugin %q is already served by plugin %q; it is not registered", def.URITemplate, plugin, other))
				continue
			}
			prefix, _, _ := strings.Cut(def.URITemplate, "{")
			entry.templates = append(entry.templates, &Template{Plugin: plugin, Def: def, prefix: prefix})
		}
		sort.Slice(entry.tools, func(i, j int) bool { return entry.tools[i].ID < entry.tools[j].ID })
		entry.collisions = change.Collisions
		c.plugins[plugin] = entry
	} else {
		delete(c.plugins, plugin)
	}
	for id := range oldIDs {
		change.Removed = append(change.Removed, id)
	}
	// The index changes before the lock is let go, so whoever sees a plugin's
	// tools in the catalog also finds them by search. Searches never take mu.
	c.index.Replace(plugin, docs)
	c.mu.Unlock()

	sort.Strings(change.Added)
	sort.Strings(change.Removed)
	if !change.Empty() {
		c.listenMu.Lock()
		ls := append([]func(Change){}, c.listeners...)
		c.listenMu.Unlock()
		for _, f := range ls {
			f(change)
		}
	}
	return change
}

// templateOwner names the plugin other than plugin that serves the URI
// template, or ""; c.mu is held.
func (c *Catalog) templateOwner(uriTemplate, plugin string) string {
	for name, e := range c.plugins {
		if name == plugin {
			continue
		}
		for _, t := range e.templates {
			if t.Def.URITemplate == uriTemplate {
				return name
			}
		}
	}
	return ""
}

// doc is the search document of a tool; c.mu is held.
func (c *Catalog) doc(t *Tool) search.Doc {
	return search.Doc{ID: t.ID, Plugin: t.Plugin, Name: t.Def.Name, Description: t.Def.Description,
		Params: search.ParamsFromSchema(t.Def.InputSchema), Labels: c.labelsOf(t)}
}

// Labels are the labels a search by labels matches a tool on: its plugin's,
// the operator's over them, and read_only, destructive and idempotent from
// its annotations.
func (c *Catalog) Labels(t *Tool) map[string]string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.labelsOf(t)
}

// labelsOf builds Labels; c.mu is held.
func (c *Catalog) labelsOf(t *Tool) map[string]string {
	// The operator's labels of the plugin block win over the plugin's own:
	// labels = { category = "cluster" } is meant, not ignored.
	labels := map[string]string{}
	for k, v := range t.Def.Labels {
		labels[k] = v
	}
	for k, v := range c.labels[t.Plugin] {
		labels[k] = v
	}
	a := t.Def.Annotations
	if a.IsReadOnly() {
		labels["read_only"] = "true"
	}
	if a.IsDestructive() {
		labels["destructive"] = "true"
	}
	if a.IsIdempotent() {
		labels["idempotent"] = "true"
	}
	return labels
}

// Tool returns the tool exposed under id.
func (c *Catalog) Tool(id string) (*Tool, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.tools[id]
	return t, ok
}

// Tools returns the tools of one plugin, or of all when plugin is empty,
// ordered by ID.
func (c *Catalog) Tools(plugin string) []*Tool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Tool
	for name, e := range c.plugins {
		if plugin == "" || name == plugin {
			out = append(out, e.tools...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ToolCount is the number of tools a plugin brings.
func (c *Catalog) ToolCount(plugin string) int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.plugins[plugin]; e != nil {
		return len(e.tools)
	}
	return 0
}

// Collisions lists what of a plugin's manifest could not be registered, and
// why: names taken by another of its tools or by another plugin. They stay
// listed until the plugin's next manifest.
func (c *Catalog) Collisions(plugin string) []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.plugins[plugin]; e != nil {
		return append([]string(nil), e.collisions...)
	}
	return nil
}

// Known reports whether the catalog has a manifest for the plugin.
func (c *Catalog) Known(plugin string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.plugins[plugin] != nil
}

// Prompt returns the prompt exposed under id.
func (c *Catalog) Prompt(id string) (*Prompt, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	p, ok := c.prompts[id]
	return p, ok
}

// PromptsMeant returns the prompts a name that is none probably means: those
// whose own name it is (the name without its x_<plugin>_ prefix), else the
// one it is a typo of.
func (c *Catalog) PromptsMeant(name string) []string {
	var ids, bare []string
	for _, p := range c.Prompts("") {
		ids = append(ids, p.ID)
		if p.Def.Name == name {
			bare = append(bare, p.ID)
		}
	}
	if len(bare) > 0 {
		return bare
	}
	if near := similar.Closest(name, ids); near != "" {
		return []string{near}
	}
	return nil
}

// ResourceMeant returns the listed resource URI a URI that routes nowhere
// probably means, a typo of it, or "" when none is close.
func (c *Catalog) ResourceMeant(uri string) string {
	rs, _ := c.Resources("")
	return closestOf(uri, rs, func(r *Resource) string { return r.Def.URI })
}

// TemplateMeant returns the listed URI template a template that is none
// probably means, a typo of it, or "" when none is close.
func (c *Catalog) TemplateMeant(uriTemplate string) string {
	_, ts := c.Resources("")
	return closestOf(uriTemplate, ts, func(t *Template) string { return t.Def.URITemplate })
}

// closestOf is similar.Closest over the names key gives items.
func closestOf[T any](given string, items []T, key func(T) string) string {
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = key(it)
	}
	return similar.Closest(given, names)
}

// Prompts returns the prompts of one plugin, or of all, ordered by ID.
func (c *Catalog) Prompts(plugin string) []*Prompt {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*Prompt
	for name, e := range c.plugins {
		if plugin == "" || name == plugin {
			out = append(out, e.prompts...)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Resources returns the resources and templates of one plugin, or of all,
// ordered by URI.
func (c *Catalog) Resources(plugin string) ([]*Resource, []*Template) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var rs []*Resource
	var ts []*Template
	for name, e := range c.plugins {
		if plugin == "" || name == plugin {
			rs = append(rs, e.resources...)
			ts = append(ts, e.templates...)
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Def.URI < rs[j].Def.URI })
	sort.Slice(ts, func(i, j int) bool { return ts[i].Def.URITemplate < ts[j].Def.URITemplate })
	return rs, ts
}

// RouteResource names the plugin that serves uri: an exact resource first, then
// the template with the longest matching literal prefix; between plugins whose
// templates' prefixes are as long, the first by name, so that a URI goes to
// the same plugin every time.
func (c *Catalog) RouteResource(uri string) (plugin string, res *Resource, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if r, ok := c.resources[uri]; ok {
		return r.Plugin, r, true
	}
	best := -1
	for _, e := range c.plugins {
		for _, t := range e.templates {
			if t.prefix == "" || !strings.HasPrefix(uri, t.prefix) {
				continue
			}
			if len(t.prefix) > best || (len(t.prefix) == best && t.Plugin < plugin) {
				best, plugin = len(t.prefix), t.Plugin
			}
		}
	}
	return plugin, nil, best >= 0
}
