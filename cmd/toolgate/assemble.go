package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/core/gateway"
	"github.com/toolgate/toolgate/core/metatools"
	"github.com/toolgate/toolgate/core/native"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/core/telemetry"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// gatewayParts are the assembled pieces of one running gateway.
type gatewayParts struct {
	catalog   *catalog.Catalog
	plugins   *supervisor.Manager
	front     *gateway.Server
	telemetry *telemetry.Telemetry
}

// baseEnv is all of the gateway's own environment a plugin gets, besides what
// its config block gives it: enough to find programs and a home directory.
var baseEnv = []string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ"}

// specs turns the config's plugin blocks into supervisor specs; launch says
// which executable runs a built-in plugin type.
func specs(cfg *config.Config, launch *launcher) []supervisor.Spec {
	var out []supervisor.Spec
	for i := range cfg.Plugins {
		p := &cfg.Plugins[i]
		if p.Disabled {
			continue
		}
		env := []string{}
		for _, k := range baseEnv {
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(p.Env)) {
			env = append(env, k+"="+p.Env[k])
		}
		spec := supervisor.Spec{
			Name: p.Name, Env: env, Config: p.Config, AutoStart: p.AutoStart,
			IdleTimeout: p.IdleTimeout, StartTimeout: p.StartTimeout,
			ConfigError: fieldErrors(cfg, p),
		}
		if p.Path != "" {
			spec.Path, spec.Args, spec.Dir = p.Path, p.Args, filepath.Dir(p.Path)
		} else {
			spec.Path, spec.Args = launch.command(p.Type)
		}
		out = append(out, spec)
	}
	return out
}

// fieldErrors points each field error a plugin reports at the line the
// operator wrote it on.
func fieldErrors(cfg *config.Config, p *config.Plugin) func(*protov1.ConfigError) error {
	return func(ce *protov1.ConfigError) error {
		lines := make([]string, len(ce.Fields))
		for i, f := range ce.Fields {
			r := p.DeclRange
			if p.FieldRange != nil {
				r = p.FieldRange(f.Path)
			}
			where := fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
			if f.Path != "" {
				lines[i] = fmt.Sprintf("%s: plugin %q: config.%s: %s", where, p.Name, f.Path, f.Message)
			} else {
				lines[i] = fmt.Sprintf("%s: plugin %q: %s", where, p.Name, f.Message)
			}
		}
		return fmt.Errorf("%s", strings.Join(lines, "\n"))
	}
}

// pluginStates are every supervisor.State, each a toolgate_plugin_state series.
var pluginStates = []string{string(supervisor.Lazy), string(supervisor.Starting), string(supervisor.Running),
	string(supervisor.Restarting), string(supervisor.Failed), string(supervisor.Stopping), string(supervisor.Stopped)}

// telemetryOptions are the config's observability settings; assemble adds
// what it reads the plugins from.
func telemetryOptions(cfg *config.Config, logger hclog.Logger) telemetry.Options {
	return telemetry.Options{
		Logger: logger.Named("telemetry"), Version: version,
		Metrics: cfg.Listen.Metrics, PluginStates: pluginStates,
		AuditLog: cfg.Gateway.AuditLog, AuditMaxSize: cfg.Gateway.AuditLogMaxSize, AuditKeep: cfg.Gateway.AuditLogKeep,
		OTLPEndpoint: cfg.Telemetry.OTLPEndpoint,
	}
}

// assemble wires catalog, supervisors, meta-tools, telemetry and the MCP
// front together. Close the parts' telemetry when done with them.
func assemble(ctx context.Context, cfg *config.Config, topts telemetry.Options, launch *launcher, logger hclog.Logger) (*gatewayParts, error) {
	cat := catalog.New()
	for _, p := range cfg.Plugins {
		cat.SetLabels(p.Name, p.Labels)
	}
	var front *gateway.Server
	var library *native.Library
	var handlers *metatools.Handlers
	// shutdown_grace = "0s" means no grace; the parts below read a zero as
	// "use your default", so none is one nanosecond to them.
	grace := cfg.Gateway.ShutdownGrace
	if grace <= 0 {
		grace = time.Nanosecond
	}
	pluginSpecs := specs(cfg, launch)
	var plugins *supervisor.Manager // OnEvent below reads it
	plugins = supervisor.NewManager(pluginSpecs, supervisor.ManagerOptions{
		Catalog: cat, Store: catalog.ManifestStore{Dir: cfg.Gateway.StateDir}, Logger: logger,
		Policy: supervisor.Policy{DrainGrace: grace},
		OnNotice: func(plugin string, e protov1.Event) {
			if front == nil {
				return
			}
			switch e.Kind {
			case protov1.EventLog:
				var data any
				_ = json.Unmarshal(e.Log.Data, &data)
				front.NotifyPluginLog(plugin, e.Log.Level, data)
			case protov1.EventResourceUpdated:
				front.ResourceUpdated(e.URI)
			case protov1.EventTaskStatus:
				front.TaskStatus(plugin, *e.Task)
			case protov1.EventTaskInput:
				front.TaskInput(plugin, *e.TaskInput)
			}
		},
		OnEvent: func(e supervisor.Event) {
			if how, ok := processEnded(e); ok && front != nil {
				front.PluginEnded(e.Plugin, how)
			}
			if handlers != nil {
				// The instructions name the plugins that are down.
				handlers.PluginsChanged()
			}
			if e.To == supervisor.Running {
				if s, ok := plugins.Get(e.Plugin); ok {
					launch.checkVersion(s.Spec(), s.Status(), logger)
				}
			}
			if e.To == supervisor.Running && library != nil {
				// The new process knows nothing of the resources clients
				// watch; tell it without holding up its supervisor.
				go library.Resubscribe(ctx, e.Plugin)
			}
		},
	})
	topts.Plugins = func() []telemetry.PluginStatus {
		var out []telemetry.PluginStatus
		for _, st := range plugins.Statuses() {
			out = append(out, telemetry.PluginStatus{Name: st.Name, State: string(st.State), Restarts: st.Restarts, Tools: cat.ToolCount(st.Name)})
		}
		return out
	}
	tel, err := telemetry.New(ctx, topts)
	if err != nil {
		return nil, err
	}
	timeouts := map[string]time.Duration{}
	for _, p := range cfg.Plugins {
		timeouts[p.Name] = p.CallTimeout
	}
	handlers = metatools.New(cat, plugins, func(plugin string) time.Duration {
		if d := timeouts[plugin]; d > 0 {
			return d
		}
		return cfg.Gateway.CallTimeout
	}, logger)
	handlers.Observer = tel
	handlers.MaxCallTimeout = cfg.Gateway.MaxCallTimeout
	permissions := map[string]metatools.Permission{}
	for _, p := range cfg.Plugins {
		r := p.DeclRange
		permissions[p.Name] = metatools.Permission{Destructive: metatools.Destructive(p.Destructive),
			Where: fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)}
	}
	handlers.Permissions = func(plugin string) metatools.Permission {
		if p, ok := permissions[plugin]; ok {
			return p
		}
		return metatools.Permission{Destructive: metatools.DestructiveConfirm}
	}
	library = native.New(cat, plugins, handlers.CallTimeout, logger.Named("native"))

	var tools []gateway.Tool
	for _, t := range handlers.Tools() {
		tools = append(tools, gateway.Tool{Name: t.Name, Description: t.Description, LiveDescription: t.LiveDescription, InputSchema: t.InputSchema, Annotations: t.Annotations, Handle: tel.MetaTool(t.Name, t.Handle)})
	}
	var extra map[string]http.Handler
	if h := tel.Handler(); h != nil {
		extra = map[string]http.Handler{"GET /metrics": h}
	}
	front, err = gateway.New(gateway.Options{
		Name: "toolgate", Version: version, Tools: tools,
		Resources:   []gateway.Resource{catalogResource(cat, plugins)},
		UnknownTool: handlers.DirectCallMessage,
		Logger:      logger, MaxRequestBytes: cfg.Gateway.MaxRequestBytes,
		Tokens: cfg.Listen.Tokens, AllowUnauthenticated: cfg.Listen.AllowUnauthenticated, AllowedOrigins: cfg.Listen.AllowedOrigins, AllowedHosts: cfg.Listen.AllowedHosts,
		TLSCert: cfg.Listen.TLSCert, TLSKey: cfg.Listen.TLSKey,
		ShutdownGrace:  grace,
		MaxConnections: cfg.Listen.MaxConnections, ReadTimeout: cfg.Listen.ReadTimeout, IdleTimeout: cfg.Listen.IdleTimeout,
		MaxSessions: cfg.Listen.MaxSessions, MaxSessionsPerPrincipal: cfg.Listen.MaxSessionsPerPrincipal,
		SessionIdleTimeout: cfg.Listen.SessionIdleTimeout,
		SessionKeys:        cfg.Listen.SessionKeys, SessionMaxAge: cfg.Listen.SessionMaxAge,
		InputStateKey: inputStateKey(cfg.Listen.SessionKeys), PreviousInputStateKeys: previousKeys(cfg.Listen.SessionKeys),
		Handlers: extra, OAuth: oauthOptions(cfg.Listen.OAuth),
		Instructions:    handlers.Instructions,
		Ready:           pluginsReady(cfg, plugins),
		RootsChanged:    rootsChanged(plugins),
		Prompts:         nativePrompts(cfg, library),
		PluginResources: nativeResources(cfg, library),
		Completions:     nativeCompletions(cfg, pluginSpecs, library),
		AwaitCatalog:    handlers.AwaitOwner,
		Tasks:           &gateway.Tasks{Tool: "call_tool", Runner: handlers.Tasks()},
	})
	if err != nil {
		_ = tel.Close(ctx)
		return nil, err
	}
	handlers.OnGuideChange(front.ToolsChanged)
	cat.OnChange(func(c catalog.Change) {
		for _, problem := range c.Collisions {
			logger.Error("tool name collision", "plugin", c.Plugin, "problem", problem)
		}
		if note, ok := catalogChangeNote(c); ok {
			front.NotifyLog("info", map[string]any{"catalog_changed": note})
		}
		front.ResourceUpdated(catalogURI)
		if c.PromptsChanged {
			front.PromptsChanged()
		}
		if c.ResourcesChanged {
			front.ResourcesChanged()
		}
	})
	return &gatewayParts{catalog: cat, plugins: plugins, front: front, telemetry: tel}, nil
}

// inputStateKey is the key the requestState of input-required results is
// signed with: the session key that seals, so that replicas sharing it
// accept each other's states too (the gateway derives a key of its own for
// each use). Without session keys each process signs with a random key.
func inputStateKey(sessionKeys [][]byte) []byte {
	if len(sessionKeys) == 0 {
		return nil
	}
	return sessionKeys[0]
}

// previousKeys are the session keys being rotated out, still accepted on a
// requestState as on a session id.
func previousKeys(sessionKeys [][]byte) [][]byte {
	if len(sessionKeys) < 2 {
		return nil
	}
	return sessionKeys[1:]
}

// oauthOptions carries the config's oauth block to the HTTP front; nil
// leaves OAuth off.
func oauthOptions(o *config.OAuth) *gateway.OAuth {
	if o == nil {
		return nil
	}
	return &gateway.OAuth{Issuer: o.Issuer, Audience: o.Audience, JWKSURL: o.JWKSURL, Scopes: o.Scopes, Resource: o.Resource,
		MaxTokenLifetime: o.MaxTokenLifetime, AllowAnyTyp: o.AllowAnyTyp}
}

// catalogChangeNote is what sessions are told of a change to the catalog's
// tools, and whether there is anything to tell: a change of prompts or
// resources alone reaches clients as list_changed notifications.
func catalogChangeNote(c catalog.Change) (map[string]any, bool) {
	if len(c.Added)+len(c.Removed)+len(c.Collisions) == 0 {
		return nil, false
	}
	msg := map[string]any{"plugin": c.Plugin, "added": len(c.Added), "removed": len(c.Removed)}
	if len(c.Added) <= 20 {
		msg["added_tools"] = c.Added
	}
	if len(c.Removed) <= 20 {
		msg["removed_tools"] = c.Removed
	}
	if len(c.Collisions) > 0 {
		msg["collisions"] = c.Collisions
	}
	return msg, true
}

const catalogURI = "toolgate://catalog"

// catalogResource summarises the plugins and their tool counts; clients that
// subscribe hear when it changes.
func catalogResource(cat *catalog.Catalog, plugins *supervisor.Manager) gateway.Resource {
	return gateway.Resource{
		Def: protov1.Resource{URI: catalogURI, Name: "catalog", Title: "Tool catalog",
			Description: "Every plugin with its state and tool count. Subscribe to hear when tools appear or vanish.",
			MIMEType:    "application/json", Size: -1},
		Read: func(context.Context) ([]protov1.ResourceContents, error) {
			type line struct {
				Name  string `json:"name"`
				State string `json:"state"`
				Tools int    `json:"tools"`
			}
			var lines []line
			total := 0
			for _, st := range plugins.Statuses() {
				n := cat.ToolCount(st.Name)
				total += n
				lines = append(lines, line{Name: st.Name, State: string(st.State), Tools: n})
			}
			b, err := json.Marshal(map[string]any{"plugins": lines, "tools": total})
			if err != nil {
				return nil, err
			}
			return []protov1.ResourceContents{{URI: catalogURI, MIMEType: "application/json", Text: string(b)}}, nil
		},
	}
}

// rootsNoticeTimeout bounds how long telling the running plugins that a
// client's roots changed may take.
const rootsNoticeTimeout = 10 * time.Second

// rootsChanged passes a client's roots/list_changed to the running plugins
// without holding up the client's connection, which sent it as a
// notification and waits for nothing.
func rootsChanged(plugins *supervisor.Manager) func(context.Context) {
	return func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rootsNoticeTimeout)
		go func() {
			defer cancel()
			plugins.RootsChanged(ctx)
		}()
	}
}
