package kubernetes

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// eventResource is where core events are listed.
var eventResource = resource{GVR: corev1.SchemeGroupVersion.WithResource("events"), Namespaced: true}

// eventScan bounds how many events one answer reads before sorting: events
// expire after an hour, so this covers all but the noisiest clusters.
const eventScan = 5000

// eventInfo is one event in a structured answer.
type eventInfo struct {
	Namespace string    `json:"namespace,omitempty"`
	Type      string    `json:"type"`
	Reason    string    `json:"reason"`
	Object    string    `json:"object"`
	Message   string    `json:"message"`
	Count     int32     `json:"count,omitempty"`
	LastSeen  time.Time `json:"lastSeen"`
	Source    string    `json:"source,omitempty"`
}

// events returns the newest keep events matching sel in ns (all namespaces
// when empty), oldest first, and how many older ones were left out.
func (c *cluster) events(ctx context.Context, ns string, sel fields.Set, keep int) ([]eventInfo, int, error) {
	var all []corev1.Event
	cont := ""
	for {
		req := c.rest.Get().AbsPath(apiPath(eventResource, ns)...).Param("limit", "500")
		if len(sel) > 0 {
			req = req.Param("fieldSelector", sel.AsSelector().String())
		}
		if cont != "" {
			req = req.Param("continue", cont)
		}
		var l corev1.EventList
		if err := getJSON(ctx, req, &l); err != nil {
			return nil, 0, err
		}
		all = append(all, l.Items...)
		if l.Continue == "" || len(all) >= eventScan {
			break
		}
		cont = l.Continue
	}
	out := make([]eventInfo, len(all))
	for i, e := range all {
		out[i] = eventInfo{Namespace: e.Namespace, Type: e.Type, Reason: e.Reason,
			Object: e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name, Message: e.Message,
			Count: e.Count, LastSeen: lastSeen(e), Source: e.Source.Component}
		if e.ReportingController != "" && out[i].Source == "" {
			out[i].Source = e.ReportingController
		}
	}
	slices.SortStableFunc(out, func(a, b eventInfo) int { return a.LastSeen.Compare(b.LastSeen) })
	omitted := 0
	if len(out) > keep {
		omitted = len(out) - keep
		out = out[omitted:]
	}
	return out, omitted, nil
}

// lastSeen is when an event last happened, whichever API wrote it.
func lastSeen(e corev1.Event) time.Time {
	switch {
	case !e.LastTimestamp.IsZero():
		return e.LastTimestamp.Time
	case !e.EventTime.IsZero():
		return e.EventTime.Time
	case !e.FirstTimestamp.IsZero():
		return e.FirstTimestamp.Time
	}
	return e.CreationTimestamp.Time
}

func eventRows(evs []eventInfo, withNamespace bool, now time.Time) ([]string, [][]string) {
	headers := []string{"LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}
	if withNamespace {
		headers = append([]string{"NAMESPACE"}, headers...)
	}
	rows := make([][]string, len(evs))
	for i, e := range evs {
		seen := age(e.LastSeen, now)
		if e.Count > 1 {
			seen += fmt.Sprintf(" (x%d)", e.Count)
		}
		row := []string{seen, e.Type, e.Reason, e.Object, e.Message}
		if withNamespace {
			row = append([]string{e.Namespace}, row...)
		}
		rows[i] = row
	}
	return headers, rows
}

type eventsArgs struct {
	contextArg
	Namespace     string `json:"namespace,omitempty" description:"Namespace whose events to list; default the plugin's namespace."`
	AllNamespaces bool   `json:"all_namespaces,omitempty" description:"List events of all namespaces."`
	Kind          string `json:"kind,omitempty" description:"Only events about objects of this kind (pod, deployment, ...)."`
	Name          string `json:"name,omitempty" description:"Only events about the object with this name."`
	Type          string `json:"type,omitempty" enum:"Normal,Warning" description:"Only events of this type; Warning shows problems."`
	Limit         int    `json:"limit,omitempty" description:"Most events to return, newest kept (capped by the plugin's max_items)."`
}

func (a eventsArgs) namespaceArg() string { return a.Namespace }

func (k *kube) listEvents(ctx context.Context, in eventsArgs) (*plugin.Result, error) {
	ns := in.Namespace
	if ns == "" {
		ns = k.c.namespace
	}
	if in.AllNamespaces {
		ns = ""
	}
	t := target{verb: "list", resource: "events", namespace: ns, allNS: ns == ""}
	if err := k.s.limits.checkNamespace("list_events", true, ns, ns == ""); err != nil {
		return plugin.Errorf("%v", err), nil
	}
	sel := fields.Set{}
	if in.Kind != "" {
		r, err := k.c.resolve(ctx, in.Kind, "")
		if err != nil {
			return k.c.fail(t, err), nil
		}
		if res := k.allowed(t, r); res != nil {
			return res, nil
		}
		sel["involvedObject.kind"] = r.Kind
	}
	if in.Name != "" {
		sel["involvedObject.name"] = in.Name
	}
	if in.Type != "" {
		sel["type"] = in.Type
	}
	keep := k.s.maxItems
	if in.Limit > 0 && in.Limit < keep {
		keep = in.Limit
	}
	evs, omitted, err := k.c.events(ctx, ns, sel, keep)
	if err != nil {
		return k.c.fail(t, err), nil
	}
	if evs == nil {
		evs = []eventInfo{}
	}
	ans := map[string]any{"events": evs, "omitted": omitted, "truncated": omitted > 0}
	if len(evs) == 0 {
		return plugin.JSON(ans, "No events match (events expire an hour after they last happen).")
	}
	headers, rows := eventRows(evs, ns == "", k.now())
	text := renderTable(headers, rows)
	if omitted > 0 {
		text += fmt.Sprintf("\n\nShowing the newest %d events; %d older ones left out. Narrow by kind, name or type=Warning to see others.", len(evs), omitted)
	}
	return plugin.JSON(ans, text)
}
