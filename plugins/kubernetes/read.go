package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/toolgate/toolgate/sdk/plugin"
)

func (k *kube) listContexts(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
	rows := make([][]string, len(k.contexts))
	for i, c := range k.contexts {
		mark := ""
		if c.InUse {
			mark = "*"
		}
		rows[i] = []string{mark, c.Name, c.Cluster, c.Server, c.User, c.Namespace}
	}
	text := renderTable([]string{"CURRENT", "NAME", "CLUSTER", "SERVER", "USER", "NAMESPACE"}, rows)
	text += fmt.Sprintf("\n\nThis plugin uses the context marked *, default namespace %q.", k.c.namespace)
	if len(k.allowedContexts) > 0 {
		text += fmt.Sprintf(" A call may pass context= one of: %s.", strings.Join(k.allowedContexts, ", "))
	} else {
		text += " Other contexts need allowed_contexts in the plugin config, or another plugin block."
	}
	return plugin.JSON(map[string]any{"contexts": k.contexts, "namespace": k.c.namespace, "allowedContexts": k.allowedContexts}, text)
}

type listNamespacesArgs struct {
	contextArg
	LabelSelector string `json:"label_selector,omitempty" description:"Only namespaces whose labels match, e.g. team=shop."`
	Limit         int64  `json:"limit,omitempty" description:"Most namespaces to return (capped by the plugin's max_items)."`
	Continue      string `json:"continue,omitempty" description:"Continue token from a previous page."`
}

func (k *kube) listNamespaces(ctx context.Context, in listNamespacesArgs) (*plugin.Result, error) {
	return k.listResources(ctx, listArgs{contextArg: in.contextArg, Kind: "namespaces", APIVersion: "v1", LabelSelector: in.LabelSelector, Limit: in.Limit, Continue: in.Continue})
}

type apiResourcesArgs struct {
	contextArg
	APIGroup   string `json:"api_group,omitempty" description:"Only kinds of this API group, e.g. apps or example.com; core for the legacy core group (pods, services)."`
	Namespaced *bool  `json:"namespaced,omitempty" description:"Only namespaced kinds (true) or only cluster-scoped kinds (false)."`
}

// apiResourceInfo is one kind in list_api_resources' structured answer.
type apiResourceInfo struct {
	Name       string   `json:"name"`
	ShortNames []string `json:"shortNames,omitempty"`
	APIVersion string   `json:"apiVersion"`
	Namespaced bool     `json:"namespaced"`
	Kind       string   `json:"kind"`
	Verbs      []string `json:"verbs"`
}

func (k *kube) listAPIResources(ctx context.Context, in apiResourcesArgs) (*plugin.Result, error) {
	// A fresh look each time: this is the tool to ask after installing a CRD.
	k.c.discovery.Invalidate()
	all, err := k.c.resources(ctx, "")
	if err != nil {
		return k.c.fail(target{verb: "discover", resource: "API resources"}, err), nil
	}
	group := in.APIGroup
	if group == "core" {
		group = ""
	}
	var infos []apiResourceInfo
	var rows [][]string
	for _, r := range all {
		_, denied := k.s.limits.denies(r)
		if denied || (in.APIGroup != "" && r.GVR.Group != group) || (in.Namespaced != nil && *in.Namespaced != r.Namespaced) {
			continue
		}
		infos = append(infos, apiResourceInfo{Name: r.GVR.Resource, ShortNames: r.ShortNames, APIVersion: r.APIVersion(),
			Namespaced: r.Namespaced, Kind: r.Kind, Verbs: r.Verbs})
		rows = append(rows, []string{r.GVR.Resource, strings.Join(r.ShortNames, ","), r.APIVersion(),
			fmt.Sprint(r.Namespaced), r.Kind, strings.Join(r.Verbs, ",")})
	}
	slices.SortStableFunc(rows, func(a, b []string) int { return strings.Compare(a[2]+" "+a[0], b[2]+" "+b[0]) })
	if len(rows) == 0 {
		return plugin.JSON(map[string]any{"resources": []apiResourceInfo{}}, "No resource kinds match.")
	}
	text := renderTable([]string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND", "VERBS"}, rows)
	return plugin.JSON(map[string]any{"resources": infos}, text)
}

type listArgs struct {
	contextArg
	Kind          string `json:"kind" description:"Resource kind: plural, singular, Kind or short name (pods, Deployment, deploy, svc), optionally with its group (deployments.apps, widgets.example.com)."`
	APIVersion    string `json:"api_version,omitempty" description:"Group/version to use instead of the server's preferred one, e.g. apps/v1 or example.com/v1alpha1."`
	Namespace     string `json:"namespace,omitempty" description:"Namespace to list in; default the plugin's namespace. Ignored for cluster-scoped kinds."`
	AllNamespaces bool   `json:"all_namespaces,omitempty" description:"List across all namespaces."`
	LabelSelector string `json:"label_selector,omitempty" description:"Label selector, e.g. app=web,tier!=cache or 'env in (prod,staging)'."`
	FieldSelector string `json:"field_selector,omitempty" description:"Field selector, e.g. status.phase=Running or spec.nodeName=node-1."`
	Limit         int64  `json:"limit,omitempty" description:"Most objects to return in this page (capped by the plugin's max_items)."`
	Continue      string `json:"continue,omitempty" description:"Continue token from a previous page of the same request."`
}

func (a listArgs) namespaceArg() string { return a.Namespace }

// listAnswer is list_resources' structured answer: the text's own table,
// columns and rows, so it costs what the text costs; the NAME column names
// each object, and get_resource gives a whole one.
type listAnswer struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Namespace  string     `json:"namespace,omitempty"`
	Columns    []string   `json:"columns"`
	Rows       [][]string `json:"rows"`
	Continue   string     `json:"continue,omitempty"`
	Remaining  *int64     `json:"remainingItemCount,omitempty"`
	Truncated  bool       `json:"truncated"`
}

func (k *kube) listResources(ctx context.Context, in listArgs) (*plugin.Result, error) {
	r, err := k.c.resolve(ctx, in.Kind, in.APIVersion)
	if err != nil {
		return k.c.fail(target{verb: "list", resource: in.Kind}, err), nil
	}
	ns := k.c.namespaceFor(r, in.Namespace)
	if in.AllNamespaces {
		ns = ""
	}
	t := targetOf("list", r, "", ns)
	if res := k.allowed(t, r); res != nil {
		return res, nil
	}
	if !r.can("list") {
		return plugin.Errorf("%s: this kind cannot be listed (verbs: %s)", t, strings.Join(r.Verbs, ", ")), nil
	}
	limit := int64(k.s.maxItems)
	if in.Limit > 0 && in.Limit < limit {
		limit = in.Limit
	}
	page, err := k.c.list(ctx, r, listQuery{namespace: ns, labelSelector: in.LabelSelector, fieldSelector: in.FieldSelector,
		limit: limit, continueToken: in.Continue})
	if err != nil {
		return k.c.fail(t, err), nil
	}
	ans := listAnswer{Kind: r.Kind, APIVersion: r.APIVersion(), Namespace: ns, Columns: page.columns, Rows: page.rows,
		Continue: page.cont, Remaining: page.remaining, Truncated: page.cont != ""}
	if ans.Rows == nil {
		ans.Rows = [][]string{}
	}
	var text string
	if len(page.rows) == 0 {
		text = fmt.Sprintf("No %s found", r.GroupResource())
		if ns != "" {
			text += fmt.Sprintf(" in namespace %q", ns)
		}
		text += "."
	} else {
		text = renderTable(page.columns, page.rows)
	}
	if page.cont != "" {
		text += "\n\n" + pageNotice(len(page.rows), r.GroupResource(), page.cont, page.remaining)
	}
	return plugin.JSON(ans, text)
}

type getArgs struct {
	objectArgs
	Output string `json:"output,omitempty" enum:"yaml,json" description:"Text format of the object (default yaml)."`
}

func (k *kube) getResource(ctx context.Context, in getArgs) (*plugin.Result, error) {
	r, err := k.c.resolve(ctx, in.Kind, in.APIVersion)
	if err != nil {
		return k.c.fail(target{verb: "get", resource: in.Kind, name: in.Name}, err), nil
	}
	ns := k.c.namespaceFor(r, in.Namespace)
	t := targetOf("get", r, in.Name, ns)
	if res := k.allowed(t, r); res != nil {
		return res, nil
	}
	if in.Name == "" {
		return plugin.Errorf("%s: name is required (list_resources lists them)", t), nil
	}
	obj, err := k.c.dynamic.Resource(r.GVR).Namespace(ns).Get(ctx, in.Name, metav1.GetOptions{})
	if err != nil {
		return k.c.fail(t, err), nil
	}
	clean, hid := k.present(obj.Object)
	var text []byte
	if in.Output == "json" {
		text, err = json.MarshalIndent(clean, "", "  ")
	} else {
		text, err = yaml.Marshal(clean)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", t, err)
	}
	note := ""
	if hid {
		note = "\n\n" + secretNote
	}
	return plugin.JSON(clean, strings.TrimRight(string(text), "\n")+note)
}
