package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agext/levenshtein"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// ErrUnknownKind marks a kind the cluster does not serve.
var ErrUnknownKind = errors.New("unknown resource kind")

// cluster is the clients of one configured connection.
type cluster struct {
	server    string // API server URL, named in every transport error
	namespace string // default namespace
	dynamic   dynamic.Interface
	// rest serves the requests the dynamic client has no method for
	// (tables, logs, typed lists) at their absolute paths, decoding JSON
	// itself; see apiDiscovery for why there is no typed clientset.
	rest      *rest.RESTClient
	discovery *apiDiscovery
}

func newCluster(conn *connection) (*cluster, error) {
	httpClient, err := rest.HTTPClientFor(conn.rest)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", conn.rest.Host, err)
	}
	dyn, err := dynamic.NewForConfigAndClient(conn.rest, httpClient)
	if err != nil {
		return nil, fmt.Errorf("dynamic client for %s: %w", conn.rest.Host, err)
	}
	cfg := dynamic.ConfigFor(conn.rest)
	cfg.GroupVersion = nil
	rc, err := rest.UnversionedRESTClientForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client for %s: %w", conn.rest.Host, err)
	}
	return &cluster{
		server:    conn.rest.Host,
		namespace: conn.namespace,
		dynamic:   dyn,
		rest:      rc,
		discovery: newAPIDiscovery(rc),
	}, nil
}

// resource is one kind the cluster serves, as discovery describes it.
type resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Singular   string
	Namespaced bool
	Verbs      []string
	ShortNames []string
}

// GroupResource is the name kubectl and the API server use in messages:
// "pods", "deployments.apps".
func (r resource) GroupResource() string { return r.GVR.GroupResource().String() }

// APIVersion is "v1" or "apps/v1".
func (r resource) APIVersion() string { return r.GVR.GroupVersion().String() }

func (r resource) can(verb string) bool { return slices.Contains(r.Verbs, verb) }

// matches reports whether the name an assistant wrote (plural, singular,
// Kind or short name, any case) denotes r.
func (r resource) matches(name string) bool {
	name = strings.ToLower(name)
	if name == r.GVR.Resource || name == strings.ToLower(r.Kind) || name == r.Singular {
		return true
	}
	return slices.Contains(r.ShortNames, name)
}

// resources lists what the cluster serves: the preferred version of every
// group, or every kind of one group/version when apiVersion is given.
// Subresources (pods/log) are left out; they are not kinds.
func (c *cluster) resources(ctx context.Context, apiVersion string) ([]resource, error) {
	var lists []*metav1.APIResourceList
	if apiVersion != "" {
		l, err := c.discovery.ServerResourcesForGroupVersion(ctx, apiVersion)
		if err != nil {
			return nil, err
		}
		lists = []*metav1.APIResourceList{l}
	} else {
		l, err := c.discovery.ServerPreferredResources(ctx)
		// Discovery reports groups it could not reach (a down aggregated
		// API) alongside everything else; the rest is still usable.
		if err != nil && len(l) == 0 {
			return nil, err
		}
		lists = l
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []resource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, ar := range l.APIResources {
			if strings.Contains(ar.Name, "/") {
				continue
			}
			singular := ar.SingularName
			if singular == "" {
				singular = strings.ToLower(ar.Kind)
			}
			out = append(out, resource{
				GVR: gv.WithResource(ar.Name), Kind: ar.Kind, Singular: singular,
				Namespaced: ar.Namespaced, Verbs: ar.Verbs, ShortNames: ar.ShortNames,
			})
		}
	}
	// The core group wins a name several groups share ("events"), as in kubectl.
	slices.SortStableFunc(out, func(a, b resource) int {
		return boolRank(a.GVR.Group != "") - boolRank(b.GVR.Group != "")
	})
	return out, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// resolve finds the kind an assistant named. "deployments.apps" and
// "widgets.example.com" pin the group. A miss refreshes discovery once, so a
// CRD installed a moment ago is found.
func (c *cluster) resolve(ctx context.Context, kind, apiVersion string) (resource, error) {
	name, group, pinned := strings.Cut(strings.TrimSpace(kind), ".")
	if name == "" {
		return resource{}, fmt.Errorf("kind is required: %w", ErrUnknownKind)
	}
	var all []resource
	for attempt := 0; attempt < 2; attempt++ {
		if attempt > 0 {
			c.discovery.Invalidate()
		}
		var err error
		all, err = c.resources(ctx, apiVersion)
		if err != nil {
			return resource{}, groupVersionErr(apiVersion, err)
		}
		for _, r := range all {
			if r.matches(name) && (!pinned || strings.EqualFold(r.GVR.Group, group)) {
				return r, nil
			}
		}
	}
	where := "this cluster"
	if apiVersion != "" {
		where = apiVersion
	}
	msg := fmt.Sprintf("%q is not a kind %s serves", kind, where)
	if near := nearKinds(all, name); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	}
	return resource{}, fmt.Errorf("%s (list_api_resources shows them all): %w", msg, ErrUnknownKind)
}

// resolveGVK finds the resource of an object's apiVersion and kind, as a
// manifest states them.
func (c *cluster) resolveGVK(ctx context.Context, apiVersion, kind string) (resource, error) {
	var all []resource
	for attempt := 0; attempt < 2; attempt++ {
		if attempt > 0 {
			c.discovery.Invalidate()
		}
		var err error
		all, err = c.resources(ctx, apiVersion)
		if err != nil && attempt == 0 {
			continue
		}
		if err != nil {
			return resource{}, groupVersionErr(apiVersion, err)
		}
		for _, r := range all {
			if r.Kind == kind {
				return r, nil
			}
		}
	}
	var near []string
	for _, r := range all {
		if levenshtein.Distance(strings.ToLower(kind), strings.ToLower(r.Kind), nil) <= 2 && !slices.Contains(near, r.Kind) {
			near = append(near, r.Kind)
		}
	}
	hint := ""
	if len(near) > 0 {
		hint = fmt.Sprintf("; did you mean kind %s?", strings.Join(near, ", "))
	}
	return resource{}, fmt.Errorf("%s %s is not served by this cluster%s: %w", apiVersion, kind, hint, ErrUnknownKind)
}

// groupVersionErr tells a group/version the server does not serve (it
// answers 404) from a server that cannot be reached, is slow or refuses the
// credentials: only the first is an unknown kind.
func groupVersionErr(apiVersion string, err error) error {
	if apiVersion == "" || !apierrors.IsNotFound(err) {
		return err
	}
	return fmt.Errorf("API version %q is not served by this cluster (%v): %w", apiVersion, err, ErrUnknownKind)
}

// hasSubresource reports whether r serves the named subresource ("scale").
func (c *cluster) hasSubresource(ctx context.Context, r resource, sub string) (bool, error) {
	l, err := c.discovery.ServerResourcesForGroupVersion(ctx, r.APIVersion())
	if err != nil {
		return false, err
	}
	want := r.GVR.Resource + "/" + sub
	for _, ar := range l.APIResources {
		if ar.Name == want {
			return true, nil
		}
	}
	return false, nil
}

// nearKinds suggests up to five resource names: first those a typo away from
// name (within two edits of a plural, singular or Kind: "pdos", "sevrices"),
// then those that share a prefix with name or contain it.
func nearKinds(all []resource, name string) []string {
	name = strings.ToLower(name)
	var out []string
	add := func(r resource) {
		if len(out) < 5 && !slices.Contains(out, r.GroupResource()) {
			out = append(out, r.GroupResource())
		}
	}
	if len(name) >= 3 {
		for _, r := range all {
			for _, n := range []string{r.GVR.Resource, r.Singular, strings.ToLower(r.Kind)} {
				if levenshtein.Distance(name, n, nil) <= 2 {
					add(r)
					break
				}
			}
		}
	}
	for _, r := range all {
		n := r.GVR.Resource
		if len(name) >= 3 && (strings.Contains(n, name) || strings.HasPrefix(name, n[:min(len(n), 4)])) {
			add(r)
		}
	}
	return out
}

// namespaceFor picks the namespace a namespaced call works in.
func (c *cluster) namespaceFor(r resource, requested string) string {
	if !r.Namespaced {
		return ""
	}
	if requested != "" {
		return requested
	}
	return c.namespace
}
