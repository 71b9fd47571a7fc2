package gateway

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGuidanceFollowsThePlugins: the instructions and a live description
// are read when a client asks, and ToolsChanged tells the client to ask
// again.
func TestGuidanceFollowsThePlugins(t *testing.T) {
	var plugins atomic.Value
	plugins.Store("k8s")
	f := newFixture(t, func(o *Options) {
		o.Instructions = func() string { return "plugins: " + plugins.Load().(string) }
		o.Tools[0].LiveDescription = func() string { return "find tools of " + plugins.Load().(string) }
	})
	first := f.srv.opts.Tools[0].Name
	c, done := startStdio(t, f)
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	init := c.recv()
	var ir struct {
		Instructions string `json:"instructions"`
		Capabilities struct {
			Tools struct {
				ListChanged bool `json:"listChanged"`
			} `json:"tools"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(init.Result, &ir); err != nil || ir.Instructions != "plugins: k8s" || !ir.Capabilities.Tools.ListChanged {
		t.Fatalf("initialize = %s (%v): want the instructions of now and tools.listChanged", init.Result, err)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	description := func(id int) string {
		c.send(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id)
		m := c.recv()
		var lr struct {
			Tools []struct{ Name, Description string } `json:"tools"`
		}
		_ = json.Unmarshal(m.Result, &lr)
		for _, tl := range lr.Tools {
			if tl.Name == first {
				return tl.Description
			}
		}
		t.Fatalf("tools/list = %s: no %s", m.Result, first)
		return ""
	}
	if d := description(1); d != "find tools of k8s" {
		t.Errorf("description = %q, want the live one", d)
	}
	plugins.Store("k8s, prom")
	f.srv.ToolsChanged()
	if m := c.recv(); m.Method != "notifications/tools/list_changed" {
		t.Fatalf("after ToolsChanged got %+v, want notifications/tools/list_changed", m)
	}
	if d := description(2); d != "find tools of k8s, prom" {
		t.Errorf("description after the change = %q", d)
	}
	for _, m := range finish(t, c, done) {
		if bytes.Contains(m.Params, []byte("list_changed")) || strings.Contains(m.Method, "list_changed") {
			t.Errorf("unexpected second list_changed: %+v", m)
		}
	}
}
