package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tableAccept asks the API server to print lists itself, as kubectl does:
// built-in kinds and CRDs (additionalPrinterColumns) get their real columns
// without this plugin knowing any kind. Plain JSON is the fallback for
// servers that cannot print a kind.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// listQuery is one page request of a kind.
type listQuery struct {
	namespace     string // empty: all namespaces (or a cluster-scoped kind)
	labelSelector string
	fieldSelector string
	limit         int64
	continueToken string
}

// listing is one page of objects with the server's columns for them; the
// NAME column (and NAMESPACE across namespaces) names each object.
type listing struct {
	columns   []string
	rows      [][]string
	cont      string
	remaining *int64
}

// list fetches one page of r as a server-side table. Only the objects'
// metadata comes along, for their names: the full objects would be ten
// times the table, and a Secret's would carry its values.
func (c *cluster) list(ctx context.Context, r resource, q listQuery) (*listing, error) {
	req := c.rest.Get().
		AbsPath(apiPath(r, q.namespace)...).
		SetHeader("Accept", tableAccept).
		Param("includeObject", "Metadata")
	if q.labelSelector != "" {
		req = req.Param("labelSelector", q.labelSelector)
	}
	if q.fieldSelector != "" {
		req = req.Param("fieldSelector", q.fieldSelector)
	}
	if q.limit > 0 {
		req = req.Param("limit", fmt.Sprint(q.limit))
	}
	if q.continueToken != "" {
		req = req.Param("continue", q.continueToken)
	}
	raw, err := req.Do(ctx).Raw()
	if err != nil {
		return nil, statusFromBody(raw, err)
	}
	var probe struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("decode list of %s: %w", r.GroupResource(), err)
	}
	if probe.Kind == "Table" {
		return decodeTable(raw, r, q.namespace == "" && r.Namespaced)
	}
	return decodeList(raw, r, q.namespace == "" && r.Namespaced)
}

func decodeTable(raw []byte, r resource, withNamespace bool) (*listing, error) {
	var t metav1.Table
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("decode table of %s: %w", r.GroupResource(), err)
	}
	out := &listing{cont: t.Continue, remaining: t.RemainingItemCount}
	var keep []int
	if withNamespace {
		out.columns = append(out.columns, "NAMESPACE")
	}
	for i, col := range t.ColumnDefinitions {
		// Priority > 0 columns are kubectl's -o wide extras.
		if col.Priority == 0 {
			keep = append(keep, i)
			out.columns = append(out.columns, strings.ToUpper(col.Name))
		}
	}
	for _, row := range t.Rows {
		var obj map[string]any
		if len(row.Object.Raw) > 0 {
			if err := json.Unmarshal(row.Object.Raw, &obj); err != nil {
				return nil, fmt.Errorf("decode %s in table: %w", r.Kind, err)
			}
		}
		m := metaOf(obj)
		var cells []string
		if withNamespace {
			cells = append(cells, cell(m.namespace))
		}
		for _, i := range keep {
			if i < len(row.Cells) {
				cells = append(cells, cell(row.Cells[i]))
			} else {
				cells = append(cells, "")
			}
		}
		out.rows = append(out.rows, cells)
	}
	return out, nil
}

func decodeList(raw []byte, r resource, withNamespace bool) (*listing, error) {
	var l struct {
		Metadata metav1.ListMeta  `json:"metadata"`
		Items    []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("decode list of %s: %w", r.GroupResource(), err)
	}
	out := &listing{cont: l.Metadata.Continue, remaining: l.Metadata.RemainingItemCount}
	if withNamespace {
		out.columns = append(out.columns, "NAMESPACE")
	}
	out.columns = append(out.columns, "NAME", "AGE")
	now := time.Now()
	for _, obj := range l.Items {
		m := metaOf(obj)
		var cells []string
		if withNamespace {
			cells = append(cells, m.namespace)
		}
		cells = append(cells, m.name, age(m.created, now))
		out.rows = append(out.rows, cells)
	}
	return out, nil
}

// apiPath is the REST path of r's collection: /api/v1/namespaces/x/pods,
// /apis/apps/v1/deployments.
func apiPath(r resource, namespace string) []string {
	var p []string
	if r.GVR.Group == "" {
		p = []string{"/api", r.GVR.Version}
	} else {
		p = []string{"/apis", r.GVR.Group, r.GVR.Version}
	}
	if r.Namespaced && namespace != "" {
		p = append(p, "namespaces", namespace)
	}
	return append(p, r.GVR.Resource)
}

// statusFromBody recovers the API server's own Status from an error body.
// A client cannot decode a JSON Status after asking for a Table, so its
// error says only "unknown"; the server's message says who was refused
// what.
func statusFromBody(body []byte, err error) error {
	var st metav1.Status
	if json.Unmarshal(body, &st) != nil || st.Kind != "Status" || st.Message == "" {
		return err
	}
	return &apierrors.StatusError{ErrStatus: st}
}
