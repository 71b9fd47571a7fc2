package catalog

import (
	"reflect"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// listsChanged compares what a plugin served before (old, nil when it was
// not in the catalog) with its new manifest (nil when it leaves), so clients
// are told of a changed prompt or resource list only when it changed.
func listsChanged(old *pluginEntry, m *Manifest) (prompts, resources bool) {
	var before, after Manifest
	if old != nil && old.manifest != nil {
		before = *old.manifest
	}
	if m != nil {
		after = *m
	}
	prompts = !sameList(before.Prompts, after.Prompts)
	resources = !sameList(before.Resources, after.Resources) || !sameList(before.Templates, after.Templates)
	return prompts, resources
}

// sameList treats nil and empty alike: a plugin that lists nothing twice did
// not change.
func sameList[T any](a, b []T) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Template returns the resource template listed under uriTemplate.
func (c *Catalog) Template(uriTemplate string) (*Template, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, e := range c.plugins {
		for _, t := range e.templates {
			if t.Def.URITemplate == uriTemplate {
				return t, true
			}
		}
	}
	return nil, false
}

// Info is what a plugin said of itself when its manifest was learned: its
// capabilities tell which optional requests it serves.
func (c *Catalog) Info(plugin string) (protov1.Info, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.plugins[plugin]
	if e == nil || e.manifest == nil {
		return protov1.Info{}, false
	}
	return e.manifest.Info, true
}
