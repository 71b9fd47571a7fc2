package kubernetes

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// managedDepth is how deep a field path is written out before its subtree
// is summed up as the path itself: "spec.template.spec" says enough.
const managedDepth = 3

// managedEntry is one field manager's last write: who set which fields when.
type managedEntry struct {
	Manager     string    `json:"manager"`
	Operation   string    `json:"operation"`
	Subresource string    `json:"subresource,omitempty"`
	Time        time.Time `json:"time,omitzero"`
	Fields      []string  `json:"fields"`
}

// managedSummary turns metadata.managedFields, which get_resource leaves out
// for its size, into "set by MANAGER at TIME: fields", newest first: the
// answer to "who changed this, and when".
func managedSummary(entries []metav1.ManagedFieldsEntry) []managedEntry {
	var out []managedEntry
	for _, e := range entries {
		me := managedEntry{Manager: e.Manager, Operation: string(e.Operation), Subresource: e.Subresource}
		if e.Time != nil {
			me.Time = e.Time.UTC()
		}
		if e.FieldsV1 != nil {
			var tree map[string]any
			if json.Unmarshal(e.FieldsV1.GetRawBytes(), &tree) == nil {
				me.Fields = fieldPaths(tree, "", 0)
			}
		}
		out = append(out, me)
	}
	slices.SortStableFunc(out, func(a, b managedEntry) int { return b.Time.Compare(a.Time) })
	return out
}

// fieldPaths flattens a fieldsV1 tree ("f:spec": {"f:replicas": {}}) into
// dotted paths; list items keyed by "k:{...}" or "v:..." show as [key].
func fieldPaths(tree map[string]any, prefix string, depth int) []string {
	var out []string
	for key, sub := range tree {
		if key == "." {
			continue
		}
		var name string
		switch {
		case strings.HasPrefix(key, "f:"):
			name = key[2:]
		case strings.HasPrefix(key, "k:"), strings.HasPrefix(key, "v:"), strings.HasPrefix(key, "i:"):
			name = "[" + key[2:] + "]"
		default:
			name = key
		}
		path := name
		if prefix != "" && strings.HasPrefix(name, "[") {
			path = prefix + name
		} else if prefix != "" {
			path = prefix + "." + name
		}
		child, _ := sub.(map[string]any)
		if depth+1 >= managedDepth || !hasFields(child) {
			out = append(out, path)
			continue
		}
		out = append(out, fieldPaths(child, path, depth+1)...)
	}
	slices.Sort(out)
	return out
}

// hasFields reports whether a fieldsV1 node has children other than ".".
func hasFields(node map[string]any) bool {
	for k := range node {
		if k != "." {
			return true
		}
	}
	return false
}

// managedText renders the summary, one line per manager.
func managedText(entries []managedEntry, now time.Time) string {
	var b strings.Builder
	b.WriteString("Managed fields:\n")
	for _, e := range entries {
		b.WriteString("  set by " + e.Manager)
		if e.Subresource != "" {
			b.WriteString(" (" + e.Subresource + ")")
		}
		if !e.Time.IsZero() {
			b.WriteString(" at " + e.Time.Format(time.RFC3339) + " (" + age(e.Time, now) + " ago)")
		}
		b.WriteString(" via " + e.Operation + ": " + strings.Join(e.Fields, ", ") + "\n")
	}
	return b.String()
}
