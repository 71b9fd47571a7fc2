package kubernetes

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Version is the plugin's version as GetInfo reports it.
const Version = "1.0.0"

// backend serves the plugin. Its tool set is only known once Configure has
// read read_only and allow_destructive, so it rebuilds the declarative
// plugin there instead of declaring one up front.
type backend struct {
	protov1.NoResources
	protov1.NoPrompts
	protov1.NoWatch

	logger hclog.Logger

	mu    sync.RWMutex
	inner protov1.Backend // nil until Configure succeeds
}

// New returns the Kubernetes plugin, to be served with plugin.ServeBackend.
func New(logger hclog.Logger) protov1.Backend {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	routeKlog(logger)
	return &backend{logger: logger}
}

func (b *backend) GetInfo(context.Context) (protov1.Info, error) {
	return protov1.Info{Name: "kubernetes", Version: Version, ProtocolMinor: protov1.ProtocolMinor,
		Capabilities: protov1.Capabilities{Tools: true}, ConfigSchema: configSchema()}, nil
}

func (b *backend) Configure(ctx context.Context, raw json.RawMessage) error {
	cfg, s, err := decodeConfig(raw)
	if err != nil {
		return err
	}
	conn, err := connect(cfg, s.timeout)
	if err != nil {
		return err
	}
	c, err := newCluster(conn)
	if err != nil {
		return err
	}
	clusters, err := connectContexts(cfg, s)
	if err != nil {
		return err
	}
	k := &kube{c: c, s: s, contexts: conn.contexts, logger: b.logger, now: time.Now,
		contextName: inUseContext(conn.contexts), allowedContexts: cfg.AllowedContexts, clusters: clusters}
	inner, err := (&plugin.Plugin{Name: "kubernetes", Version: Version, Tools: toolsFor(k)}).Backend()
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.inner = inner
	b.mu.Unlock()
	b.logger.Info("kubernetes plugin configured", "server", c.server, "namespace", c.namespace,
		"read_only", s.readOnly, "allow_destructive", s.allowDestructive, "max_items", s.maxItems)
	return nil
}

// ListTools before Configure answers the default (read-only) tool set, which
// is what an unconfigured plugin would serve.
func (b *backend) ListTools(ctx context.Context) ([]protov1.Tool, error) {
	b.mu.RLock()
	inner := b.inner
	b.mu.RUnlock()
	if inner == nil {
		tools := toolsFor(&kube{s: settings{readOnly: true, maxItems: defaultMaxItems, timeout: defaultTimeout}})
		defs := make([]protov1.Tool, len(tools))
		for i, t := range tools {
			defs[i] = t.Def
		}
		return defs, nil
	}
	return inner.ListTools(ctx)
}

func (b *backend) CallTool(ctx context.Context, req *protov1.CallRequest, events protov1.CallEvents) (*protov1.Result, error) {
	b.mu.RLock()
	inner := b.inner
	b.mu.RUnlock()
	if inner == nil {
		return plugin.Errorf("the kubernetes plugin is not configured yet; its config block must be sent first"), nil
	}
	return inner.CallTool(ctx, req, events)
}
