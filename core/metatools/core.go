package metatools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/sdk/protov1"
)

var nameSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Plugin name, as in the config."}},"required":["name"],"additionalProperties":false}`)

// coreExample is the arguments of a core tool's ready call example. A
// core_plugin_* tool's names a plugin of this gateway: a placeholder passes
// the schema but names no plugin, and the call would only fail.
func (h *Handlers) coreExample(t *Tool) map[string]any {
	args := Example(t.InputSchema)
	if bytes.Equal(t.InputSchema, nameSchema) && h.Plugins != nil {
		if names := h.Plugins.Names(); len(names) > 0 {
			args["name"] = names[0]
		}
	}
	return args
}

func (h *Handlers) coreTools() []Tool {
	mutating := protov1.Annotations{ReadOnly: truth(false), Destructive: truth(false), Idempotent: truth(true), OpenWorld: truth(false)}
	return []Tool{
		{Name: "core_plugin_list", Description: "List every configured plugin with its state, pid, uptime, restarts, last error and tool count.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`), Annotations: readOnly,
			Handle: func(_ context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
				if err := decode("core_plugin_list", raw, &struct{}{}); err != nil {
					return nil, err
				}
				var out []map[string]any
				for _, st := range h.Plugins.Statuses() {
					out = append(out, h.pluginDetail(st))
				}
				return jsonResult(map[string]any{"plugins": out})
			}},
		{Name: "core_plugin_get", Description: "Show one plugin: state, pid, uptime, restarts, last error with its stderr, tool count.",
			InputSchema: nameSchema, Annotations: readOnly, Handle: h.withPlugin("core_plugin_get", func(*supervisor.Supervisor, context.Context) error { return nil })},
		{Name: "core_plugin_start", Description: "Start a plugin that is lazy or stopped, and wait until it runs.",
			InputSchema: nameSchema, Annotations: mutating, Handle: h.withPlugin("core_plugin_start", (*supervisor.Supervisor).Start)},
		{Name: "core_plugin_stop", Description: "Stop a plugin; its tools stay listed but calls are refused until it is started again.",
			InputSchema: nameSchema, Annotations: mutating, Handle: h.withPlugin("core_plugin_stop", (*supervisor.Supervisor).Stop)},
		{Name: "core_plugin_restart", Description: "Restart a plugin, closing an open circuit breaker, and wait until it runs.",
			InputSchema: nameSchema, Annotations: mutating, Handle: h.withPlugin("core_plugin_restart", (*supervisor.Supervisor).Restart)},
		{Name: "core_events", Description: "Show recent plugin state changes (starts, crashes, restarts, circuit opening), oldest first.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"plugin":{"type":"string","description":"Only this plugin's events."},"limit":{"type":"integer","minimum":1,"default":50}},"additionalProperties":false}`),
			Annotations: readOnly,
			Handle: func(_ context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
				var in struct {
					Plugin string `json:"plugin"`
					Limit  *int   `json:"limit"`
				}
				if err := decode("core_events", raw, &in); err != nil {
					return nil, err
				}
				limit := 50
				if in.Limit != nil {
					if *in.Limit < 1 {
						return nil, &ArgumentError{Tool: "core_events", Argument: "limit", Problem: "must be at least 1"}
					}
					limit = *in.Limit
				}
				events := h.Plugins.Events(in.Plugin, limit)
				if events == nil {
					events = []supervisor.Event{}
				}
				return jsonResult(map[string]any{"events": events})
			}},
	}
}

// withPlugin builds a core tool that acts on one named plugin, then shows it.
func (h *Handlers) withPlugin(tool string, act func(*supervisor.Supervisor, context.Context) error) func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
	return func(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
		var in struct {
			Name string `json:"name"`
		}
		if err := decode(tool, raw, &in); err != nil {
			return nil, err
		}
		s, ok := h.Plugins.Get(in.Name)
		if !ok {
			return nil, &ArgumentError{Tool: tool, Argument: "name", Problem: "no plugin named " + quote(clip.Name(in.Name)) + "; plugins: " + strings.Join(h.Plugins.Names(), ", ")}
		}
		ctx, cancel := context.WithTimeout(ctx, h.CallTimeout(in.Name))
		defer cancel()
		if err := act(s, ctx); err != nil {
			return errorResult("%s %s: %v", tool, in.Name, err), nil
		}
		return jsonResult(h.pluginDetail(s.Status()))
	}
}

func (h *Handlers) pluginDetail(st supervisor.Status) map[string]any {
	out := map[string]any{"name": st.Name, "state": st.State, "since": st.Since.UTC().Format(time.RFC3339),
		"restarts": st.Restarts, "tools": h.Catalog.ToolCount(st.Name)}
	if st.Pid != 0 {
		out["pid"] = st.Pid
		out["uptime_seconds"] = int(time.Since(st.StartedAt).Seconds())
	}
	if st.Info.Version != "" {
		out["version"] = st.Info.Version
	}
	if st.LastError != "" {
		out["last_error"] = st.LastError
	}
	if len(st.Stderr) > 0 {
		out["stderr"] = st.Stderr
	}
	if c := h.Catalog.Collisions(st.Name); len(c) > 0 {
		out["collisions"] = c
	}
	if !st.NextTry.IsZero() {
		out["next_try"] = st.NextTry.UTC().Format(time.RFC3339)
	}
	return out
}
