package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

const (
	defaultMaxItems = 100
	defaultTimeout  = 30 * time.Second
	// maxItemsCeiling keeps one answer within what a model can read.
	maxItemsCeiling = 5000
)

// Config is the plugin's `config {}` block.
type Config struct {
	// Kubeconfig is the kubeconfig file; empty means $KUBECONFIG, then
	// ~/.kube/config, then the in-cluster service account.
	Kubeconfig string `json:"kubeconfig,omitempty"`
	// Context selects a kubeconfig context other than the current one.
	Context string `json:"context,omitempty"`
	// InCluster uses the pod's service account even when a kubeconfig exists.
	InCluster bool `json:"in_cluster,omitempty"`
	// Namespace is the default for namespaced tools; empty means the
	// context's namespace, then "default".
	Namespace string `json:"namespace,omitempty"`
	// ReadOnly (default true) registers no tool that changes the cluster.
	ReadOnly *bool `json:"read_only,omitempty"`
	// AllowDestructive registers delete_resource (only when not read-only).
	AllowDestructive bool `json:"allow_destructive,omitempty"`
	// MaxItems caps the objects one list answer carries.
	MaxItems int `json:"max_items,omitempty"`
	// Timeout bounds every request to the API server (Go duration, "30s").
	Timeout string `json:"timeout,omitempty"`
	// RevealSecrets names the Secrets ("namespace/name") whose values may
	// reach the model; every other Secret shows keys and sizes only.
	RevealSecrets []string `json:"reveal_secrets,omitempty"`
	// ShowManagedFields keeps metadata.managedFields in get_resource.
	ShowManagedFields bool `json:"show_managed_fields,omitempty"`
	// AllowedNamespaces, when set, are the only namespaces any tool works in.
	AllowedNamespaces []string `json:"allowed_namespaces,omitempty"`
	// DeniedKinds are kinds no tool reads or changes ("secrets",
	// "widgets.example.com").
	DeniedKinds []string `json:"denied_kinds,omitempty"`
	// AllowedContexts are the kubeconfig contexts a call may pick with its
	// context argument, besides the plugin's own.
	AllowedContexts []string `json:"allowed_contexts,omitempty"`
}

// configSchema describes Config to the gateway, which checks an operator's
// settings against it before the plugin runs. It is built on first use, not
// at init: every toolgate process links this package, few serve it.
var configSchema = sync.OnceValue(func() json.RawMessage {
	s, err := plugin.SchemaOf(Config{})
	if err != nil {
		panic(fmt.Sprintf("config schema: %v", err))
	}
	return s
})

// settings is a Config checked and completed with its defaults.
type settings struct {
	readOnly          bool
	allowDestructive  bool
	maxItems          int
	timeout           time.Duration
	secrets           secretPolicy
	showManagedFields bool
	limits            limits
}

// decodeConfig checks raw and fills in defaults; problems come back as a
// *protov1.ConfigError naming the field at fault.
func decodeConfig(raw json.RawMessage) (Config, settings, error) {
	var c Config
	if err := plugin.DecodeConfig(raw, &c); err != nil {
		return c, settings{}, err
	}
	s := settings{readOnly: true, allowDestructive: c.AllowDestructive, maxItems: defaultMaxItems, timeout: defaultTimeout,
		showManagedFields: c.ShowManagedFields}
	if c.ReadOnly != nil {
		s.readOnly = *c.ReadOnly
	}
	var problems []protov1.FieldError
	s.limits = limits{namespaces: c.AllowedNamespaces, deniedKind: c.DeniedKinds}
	if c.Namespace != "" && len(c.AllowedNamespaces) > 0 && !slices.Contains(c.AllowedNamespaces, c.Namespace) {
		problems = append(problems, protov1.FieldError{Path: "namespace",
			Message: fmt.Sprintf("%q is not in allowed_namespaces (%s); pick one of those or add it", c.Namespace, strings.Join(c.AllowedNamespaces, ", "))})
	}
	for _, k := range c.DeniedKinds {
		if strings.TrimSpace(k) == "" {
			problems = append(problems, protov1.FieldError{Path: "denied_kinds", Message: "entries must name a kind, e.g. \"secrets\" or \"widgets.example.com\""})
			break
		}
	}
	reveal, bad := parseRevealList(c.RevealSecrets)
	s.secrets = secretPolicy{reveal: reveal}
	if len(bad) > 0 {
		problems = append(problems, protov1.FieldError{Path: "reveal_secrets",
			Message: fmt.Sprintf("entries must name one Secret as \"namespace/name\", got %q", bad)})
	}
	if c.MaxItems != 0 {
		if c.MaxItems < 1 || c.MaxItems > maxItemsCeiling {
			problems = append(problems, protov1.FieldError{Path: "max_items",
				Message: fmt.Sprintf("must be between 1 and %d, got %d", maxItemsCeiling, c.MaxItems)})
		}
		s.maxItems = c.MaxItems
	}
	if c.Timeout != "" {
		d, err := time.ParseDuration(c.Timeout)
		switch {
		case err != nil:
			problems = append(problems, protov1.FieldError{Path: "timeout", Message: "not a duration such as \"30s\": " + err.Error()})
		case d <= 0:
			problems = append(problems, protov1.FieldError{Path: "timeout", Message: "must be positive"})
		}
		s.timeout = d
	}
	if c.AllowDestructive && s.readOnly {
		problems = append(problems, protov1.FieldError{Path: "allow_destructive",
			Message: "has no effect while read_only is true; set read_only = false as well"})
	}
	if c.InCluster && len(c.AllowedContexts) > 0 {
		problems = append(problems, protov1.FieldError{Path: "allowed_contexts",
			Message: "cannot be combined with in_cluster, which has no kubeconfig contexts"})
	}
	if c.InCluster && (c.Kubeconfig != "" || c.Context != "") {
		problems = append(problems, protov1.FieldError{Path: "in_cluster",
			Message: "cannot be combined with kubeconfig or context"})
	}
	if len(problems) > 0 {
		return c, s, &protov1.ConfigError{Fields: problems}
	}
	return c, s, nil
}

// contextInfo is one kubeconfig context, without any credential.
type contextInfo struct {
	Name      string `json:"name"`
	Cluster   string `json:"cluster"`
	Server    string `json:"server"`
	User      string `json:"user"`
	Namespace string `json:"namespace,omitempty"`
	InUse     bool   `json:"in_use"`
}

// connection is what a Config resolves to: how to reach the API server and
// what the operator's kubeconfig says about it.
type connection struct {
	rest      *rest.Config
	namespace string
	contexts  []contextInfo
}

// connect loads the kubeconfig (or in-cluster config) the way kubectl does.
// It does not contact the cluster: an unreachable server is reported by the
// first call, with its URL, not by Configure.
func connect(c Config, timeout time.Duration) (*connection, error) {
	if c.InCluster {
		rc, err := rest.InClusterConfig()
		if err != nil {
			return nil, &protov1.ConfigError{Fields: []protov1.FieldError{{Path: "in_cluster", Message: err.Error()}}}
		}
		return finish(&connection{rest: rc, namespace: inClusterNamespace(),
			contexts: []contextInfo{{Name: "in-cluster", Server: rc.Host, InUse: true}}}, c, timeout), nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if c.Kubeconfig != "" {
		path := expandHome(c.Kubeconfig)
		if _, err := os.Stat(path); err != nil {
			return nil, &protov1.ConfigError{Fields: []protov1.FieldError{{Path: "kubeconfig", Message: err.Error()}}}
		}
		rules.ExplicitPath = path
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: c.Context})
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, &protov1.ConfigError{Fields: []protov1.FieldError{{Path: "kubeconfig", Message: err.Error()}}}
	}
	if c.Context != "" {
		if _, ok := raw.Contexts[c.Context]; !ok {
			return nil, &protov1.ConfigError{Fields: []protov1.FieldError{{Path: "context",
				Message: fmt.Sprintf("no context %q in the kubeconfig (it has: %s)", c.Context, strings.Join(contextNames(raw), ", "))}}}
		}
	}
	rc, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			err = errors.New("no kubeconfig found ($KUBECONFIG, ~/.kube/config) and not running in a cluster")
		}
		return nil, &protov1.ConfigError{Fields: []protov1.FieldError{{Path: "kubeconfig", Message: err.Error()}}}
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		ns = ""
	}
	inUse := c.Context
	if inUse == "" {
		inUse = raw.CurrentContext
	}
	conn := &connection{rest: rc, namespace: ns, contexts: listContexts(raw, inUse)}
	if len(conn.contexts) == 0 {
		conn.contexts = []contextInfo{{Name: "in-cluster", Server: rc.Host, InUse: true}}
	}
	return finish(conn, c, timeout), nil
}

func finish(conn *connection, c Config, timeout time.Duration) *connection {
	if c.Namespace != "" {
		conn.namespace = c.Namespace
	}
	if conn.namespace == "" {
		conn.namespace = "default"
	}
	conn.rest.Timeout = timeout
	// client-go's default of 5 requests a second, 10 at once, held a
	// first call for seconds while discovery read the server's two dozen
	// group versions; kubectl allows as much as this for discovery.
	conn.rest.RateLimiter = deadlineLimiter{flowcontrol.NewTokenBucketRateLimiter(clientQPS, clientBurst)}
	conn.rest.UserAgent = "toolgate-kubernetes"
	// Quiet the server's deprecation warnings on stderr; they would land in
	// the gateway log once per request.
	conn.rest.WarningHandler = rest.NoWarnings{}
	return conn
}

const (
	clientQPS   = 50
	clientBurst = 100
)

// deadlineLimiter reports a request the client-side rate limiter could not
// let through before the call's deadline as the timeout it is. The limiter
// says "would exceed context deadline" in an error of its own, also when the
// deadline has just passed, and the call would be reported as a server that
// cannot be reached.
type deadlineLimiter struct{ flowcontrol.RateLimiter }

func (l deadlineLimiter) Wait(ctx context.Context) error {
	err := l.RateLimiter.Wait(ctx)
	if _, ok := ctx.Deadline(); err != nil && ok && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %v", context.DeadlineExceeded, err)
	}
	return err
}

func listContexts(raw clientcmdapi.Config, inUse string) []contextInfo {
	var out []contextInfo
	for _, name := range contextNames(raw) {
		ctx := raw.Contexts[name]
		info := contextInfo{Name: name, Cluster: ctx.Cluster, User: ctx.AuthInfo, Namespace: ctx.Namespace, InUse: name == inUse}
		if cl, ok := raw.Clusters[ctx.Cluster]; ok {
			info.Server = cl.Server
		}
		out = append(out, info)
	}
	return out
}

func contextNames(raw clientcmdapi.Config) []string {
	names := make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func inClusterNamespace() string {
	b, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// expandHome lets operators write "~/.kube/config" in HCL, where no shell
// expands it.
func expandHome(path string) string {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	return filepath.Join(home, strings.TrimPrefix(path, "~"))
}
