package kubernetes

import (
	"errors"
	"strings"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// ErrContextNotAllowed marks a per-call context the operator did not list in
// allowed_contexts.
var ErrContextNotAllowed = errors.New("context not allowed")

// contextArg is the per-call choice of kubeconfig context; every tool that
// talks to a cluster embeds it.
type contextArg struct {
	Context string `json:"context,omitempty" description:"Kubeconfig context to use for this call, one of the plugin's allowed_contexts (list_contexts shows them); default the plugin's own context."`
}

func (a contextArg) contextName() string { return a.Context }

// on returns the plugin as it works in the named context: k itself for ""
// or its own context, a copy bound to that context's cluster for one the
// operator allowed, a refusal otherwise.
func (k *kube) on(name string) (*kube, *plugin.Result) {
	if name == "" || name == k.contextName {
		return k, nil
	}
	c, ok := k.clusters[name]
	if !ok {
		allowed := "none"
		if len(k.allowedContexts) > 0 {
			allowed = strings.Join(k.allowedContexts, ", ")
		}
		return nil, plugin.Errorf("context %q: %v: this plugin may use its own context %q and the allowed_contexts of its config (%s); pass one of those or leave context out",
			name, ErrContextNotAllowed, k.contextName, allowed)
	}
	other := *k
	other.c = c
	return &other, nil
}

// connectContexts builds a cluster for each allowed context, as Configure
// builds the default one: nothing is contacted until a call needs it.
func connectContexts(cfg Config, s settings) (map[string]*cluster, error) {
	out := map[string]*cluster{}
	for _, name := range cfg.AllowedContexts {
		one := cfg
		one.Context = name
		conn, err := connect(one, s.timeout)
		var ce *protov1.ConfigError
		if errors.As(err, &ce) {
			// The problem is an entry of allowed_contexts, not the
			// plugin's own context setting.
			for i := range ce.Fields {
				ce.Fields[i].Path = "allowed_contexts"
			}
		}
		if err != nil {
			return nil, err
		}
		if cfg.Namespace == "" {
			conn.namespace = firstNonEmpty(contextNamespace(conn, name), "default")
		}
		c, err := newCluster(conn)
		if err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, nil
}

// inUseContext is the name of the context the plugin itself uses.
func inUseContext(contexts []contextInfo) string {
	for _, c := range contexts {
		if c.InUse {
			return c.Name
		}
	}
	return ""
}

func contextNamespace(conn *connection, name string) string {
	for _, c := range conn.contexts {
		if c.Name == name {
			return c.Namespace
		}
	}
	return ""
}
