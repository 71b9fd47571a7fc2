package kubernetes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// apiDiscovery asks the API server which kinds it serves. It is a few plain
// GETs rather than client-go's discovery package, because that package (like
// the typed clientset) imports client-go's scheme, whose initialisers register
// every built-in API group's types when the program starts. toolgate is one
// binary: the gateway and every plugin process it runs paid that start-up
// cost, in time and resident memory, whether or not it ever talked to a
// cluster.
type apiDiscovery struct {
	rest *rest.RESTClient

	mu        sync.Mutex
	preferred []*metav1.APIResourceList          // nil until asked for
	byVersion map[string]*metav1.APIResourceList // "v1", "apps/v1"
}

func newAPIDiscovery(rc *rest.RESTClient) *apiDiscovery {
	return &apiDiscovery{rest: rc, byVersion: map[string]*metav1.APIResourceList{}}
}

// Invalidate forgets what was learned, so the next question asks the server
// again (a CRD installed a moment ago).
func (d *apiDiscovery) Invalidate() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.preferred = nil
	d.byVersion = map[string]*metav1.APIResourceList{}
}

// ServerResourcesForGroupVersion lists the kinds of one group/version
// ("v1", "apps/v1"), cached until Invalidate.
func (d *apiDiscovery) ServerResourcesForGroupVersion(ctx context.Context, gv string) (*metav1.APIResourceList, error) {
	d.mu.Lock()
	l, ok := d.byVersion[gv]
	d.mu.Unlock()
	if ok {
		return l, nil
	}
	l, err := d.fetchResources(ctx, gv)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.byVersion[gv] = l
	d.mu.Unlock()
	return l, nil
}

// fetchResources asks the server for one group/version's kinds, uncached.
func (d *apiDiscovery) fetchResources(ctx context.Context, gv string) (*metav1.APIResourceList, error) {
	path := "/apis/" + gv
	if !strings.Contains(gv, "/") {
		path = "/api/" + gv
	}
	var l metav1.APIResourceList
	if err := getJSON(ctx, d.rest.Get().AbsPath(path), &l); err != nil {
		return nil, err
	}
	if l.GroupVersion == "" {
		l.GroupVersion = gv
	}
	return &l, nil
}

// ServerPreferredResources lists every kind the server serves, each in its
// group's preferred version (or, for a kind only an older version has, the
// first version that has it), like kubectl api-resources. Groups that could
// not be read are reported in the error next to the lists of the rest.
func (d *apiDiscovery) ServerPreferredResources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	d.mu.Lock()
	cached := d.preferred
	d.mu.Unlock()
	if cached != nil {
		return cached, nil
	}
	groups, err := d.groups(ctx)
	if err != nil {
		return nil, err
	}
	type answer struct {
		list *metav1.APIResourceList
		err  error
	}
	answers := map[string]*answer{}
	var wg sync.WaitGroup
	for _, g := range groups {
		for _, v := range g.Versions {
			a := &answer{}
			answers[v.GroupVersion] = a
			wg.Go(func() { a.list, a.err = d.ServerResourcesForGroupVersion(ctx, v.GroupVersion) })
		}
	}
	wg.Wait()
	var out []*metav1.APIResourceList
	var failed []error
	for _, g := range groups {
		seen := map[string]bool{}
		for _, v := range g.Versions {
			a := answers[v.GroupVersion]
			if a.err != nil {
				failed = append(failed, fmt.Errorf("%s: %w", v.GroupVersion, a.err))
				continue
			}
			keep := &metav1.APIResourceList{GroupVersion: v.GroupVersion}
			for _, r := range a.list.APIResources {
				if !seen[r.Name] {
					seen[r.Name] = true
					keep.APIResources = append(keep.APIResources, r)
				}
			}
			if len(keep.APIResources) > 0 {
				out = append(out, keep)
			}
		}
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("unable to retrieve the complete list of server APIs: %w", errors.Join(failed...))
	}
	d.mu.Lock()
	d.preferred = out
	d.mu.Unlock()
	return out, nil
}

// groups is the core group and every named group, each with its versions,
// the preferred one first.
func (d *apiDiscovery) groups(ctx context.Context) ([]metav1.APIGroup, error) {
	var core metav1.APIVersions
	if err := getJSON(ctx, d.rest.Get().AbsPath("/api"), &core); err != nil {
		return nil, err
	}
	var named metav1.APIGroupList
	if err := getJSON(ctx, d.rest.Get().AbsPath("/apis"), &named); err != nil {
		return nil, err
	}
	coreGroup := metav1.APIGroup{}
	for _, v := range core.Versions {
		coreGroup.Versions = append(coreGroup.Versions, metav1.GroupVersionForDiscovery{GroupVersion: v, Version: v})
	}
	out := []metav1.APIGroup{coreGroup}
	for _, g := range named.Groups {
		// Preferred first, then the others in the server's order.
		versions := []metav1.GroupVersionForDiscovery{g.PreferredVersion}
		for _, v := range g.Versions {
			if v.GroupVersion != g.PreferredVersion.GroupVersion {
				versions = append(versions, v)
			}
		}
		if g.PreferredVersion.GroupVersion == "" {
			versions = g.Versions
		}
		g.Versions = versions
		out = append(out, g)
	}
	return out, nil
}

// openAPISchema fetches the OpenAPI v3 document of one group/version, keyed
// as the server's /openapi/v3 index names it ("api/v1", "apis/apps/v1").
// ok is false when the server publishes none for it.
func (d *apiDiscovery) openAPISchema(ctx context.Context, key string) (raw []byte, ok bool, err error) {
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := getJSON(ctx, d.rest.Get().AbsPath("/openapi/v3"), &index); err != nil {
		return nil, false, err
	}
	p, ok := index.Paths[key]
	if !ok || p.ServerRelativeURL == "" {
		return nil, false, nil
	}
	u, err := url.Parse(p.ServerRelativeURL)
	if err != nil {
		return nil, false, fmt.Errorf("OpenAPI v3 document of %s: %w", key, err)
	}
	req := d.rest.Get().AbsPath(u.Path).SetHeader("Accept", "application/json")
	for k, vs := range u.Query() {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	res := req.Do(ctx)
	if err := res.Error(); err != nil {
		return nil, false, err
	}
	raw, err = res.Raw()
	return raw, true, err
}

// getJSON runs req and decodes its JSON answer into out. A failure the
// server explains (a Status) comes back as an *apierrors.StatusError, so
// apierrors.IsNotFound and friends work as with client-go's typed clients.
func getJSON(ctx context.Context, req *rest.Request, out any) error {
	res := req.Do(ctx)
	if err := res.Error(); err != nil {
		raw, _ := res.Raw()
		return statusFromBody(raw, err)
	}
	raw, err := res.Raw()
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}
