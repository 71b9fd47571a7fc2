package search

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fixture is a small catalog with the traits the query fields select on.
func fixture() *Index {
	ix := NewIndex()
	ix.Replace("k8s", []Doc{
		{ID: "x_k8s_list_pods", Name: "list_pods", Description: "List Pods in a namespace",
			Params: []Param{{Name: "namespace", Description: "Namespace to list"}}, Labels: map[string]string{"readOnly": "true", "env": "prod"}},
		{ID: "x_k8s_delete_pod", Name: "delete_pod", Description: "Delete one Pod",
			Params: []Param{{Name: "name", Description: "Pod name"}}, Labels: map[string]string{"destructive": "true", "env": "prod"}},
		{ID: "x_k8s_get_logs", Name: "get_logs", Description: "Fetch container logs of a Pod",
			Labels: map[string]string{"readOnly": "true", "env": "prod"}},
	})
	ix.Replace("prom", []Doc{
		{ID: "x_prom_query", Name: "query", Description: "Run an instant PromQL query",
			Labels: map[string]string{"readOnly": "true"}},
		{ID: "x_prom_list_alerts", Name: "list_alerts", Description: "List firing alerts",
			Labels: map[string]string{"readOnly": "true"}},
	})
	ix.Replace("files", []Doc{
		{ID: "x_files_read_file", Name: "read_file", Description: "Read a file as text"},
		{ID: "x_files_Write_File", Name: "Write_File", Description: "Write a FILE to disk"},
	})
	return ix
}

func ids(t *testing.T, ix *Index, q Query) []string {
	t.Helper()
	res, err := ix.Search(q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	out := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		out[i] = h.Doc.ID
	}
	return out
}

func TestSearchFilters(t *testing.T) {
	ix := fixture()
	tests := []struct {
		name string
		q    Query
		want []string // in order
	}{
		{"everything by ID", Query{}, []string{"x_files_Write_File", "x_files_read_file", "x_k8s_delete_pod", "x_k8s_get_logs", "x_k8s_list_pods", "x_prom_list_alerts", "x_prom_query"}},
		{"plugin", Query{Plugin: "prom"}, []string{"x_prom_list_alerts", "x_prom_query"}},
		{"unknown plugin", Query{Plugin: "nope"}, []string{}},
		{"pattern", Query{Pattern: "x_k8s_*"}, []string{"x_k8s_delete_pod", "x_k8s_get_logs", "x_k8s_list_pods"}},
		{"pattern star inside", Query{Pattern: "*list*"}, []string{"x_k8s_list_pods", "x_prom_list_alerts"}},
		{"pattern class and ?", Query{Pattern: "x_[kp]*_?uery"}, []string{"x_prom_query"}},
		{"pattern ignores case", Query{Pattern: "*write*"}, []string{"x_files_Write_File"}},
		{"pattern case-sensitive", Query{Pattern: "*write*", CaseSensitive: true}, []string{}},
		{"pattern case-sensitive hit", Query{Pattern: "*Write*", CaseSensitive: true}, []string{"x_files_Write_File"}},
		{"description", Query{DescriptionFilter: "pod"}, []string{"x_k8s_delete_pod", "x_k8s_get_logs", "x_k8s_list_pods"}},
		{"description case-sensitive", Query{DescriptionFilter: "pod", CaseSensitive: true}, []string{}},
		{"description case-sensitive hit", Query{DescriptionFilter: "FILE", CaseSensitive: true}, []string{"x_files_Write_File"}},
		{"one label", Query{Labels: map[string]string{"readOnly": "true"}}, []string{"x_k8s_get_logs", "x_k8s_list_pods", "x_prom_list_alerts", "x_prom_query"}},
		{"all labels must match", Query{Labels: map[string]string{"readOnly": "true", "env": "prod"}}, []string{"x_k8s_get_logs", "x_k8s_list_pods"}},
		{"label value is exact", Query{Labels: map[string]string{"env": "Prod"}}, []string{}},
		{"combined", Query{Plugin: "k8s", Pattern: "*pod*", Labels: map[string]string{"readOnly": "true"}}, []string{"x_k8s_list_pods"}},
		{"text with filter", Query{Text: "list", Plugin: "prom"}, []string{"x_prom_list_alerts"}},
		{"text with label", Query{Text: "pods", Labels: map[string]string{"destructive": "true"}}, []string{"x_k8s_delete_pod"}},
		{"text with description", Query{Text: "logs", DescriptionFilter: "container"}, []string{"x_k8s_get_logs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(t, ix, tt.q)
			if !slices.Equal(got, tt.want) && (len(got) > 0 || len(tt.want) > 0) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			res, _ := ix.Search(tt.q)
			if res.Total != len(tt.want) {
				t.Errorf("Total = %d, want %d", res.Total, len(tt.want))
			}
		})
	}
}

func TestSearchText(t *testing.T) {
	ix := fixture()
	tests := []struct {
		text, top string
	}{
		{"list pods", "x_k8s_list_pods"},
		{"lsit pods", "x_k8s_list_pods"},                // typo
		{"remove pod", "x_k8s_delete_pod"},              // synonym
		{"kubernetes container logs", "x_k8s_get_logs"}, // plugin synonym
		{"promql", "x_prom_query"},                      // abbreviation
		{"alarms", "x_prom_list_alerts"},                // synonym + plural
		{"WRITE FILE", "x_files_Write_File"},            // case
		{"get pod logs", "x_k8s_get_logs"},
		{"rdfile", "x_files_read_file"}, // fuzzy abbreviation of a name
	}
	for _, tt := range tests {
		got := ids(t, ix, Query{Text: tt.text, Limit: 3})
		if len(got) == 0 || got[0] != tt.top {
			t.Errorf("Search(%q) = %v, want %s first", tt.text, got, tt.top)
		}
	}
}

func TestScores(t *testing.T) {
	ix := fixture()
	res, err := ix.Search(Query{Text: "pods"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 || res.Hits[0].Score != 1 {
		t.Fatalf("hits %+v: want several, the first scoring 1", res.Hits)
	}
	for i, h := range res.Hits {
		if h.Score <= 0 || h.Score > 1 || i > 0 && h.Score > res.Hits[i-1].Score {
			t.Errorf("hit %d %s score %v: want in (0,1], not above the one before", i, h.Doc.ID, h.Score)
		}
	}
	if res, _ := ix.Search(Query{Text: "zzzzqqq"}); res.Total != 0 || len(res.Hits) != 0 {
		t.Errorf("nonsense query matched %+v", res)
	}
}

// Identical tools in several plugins score the same and must come back in
// ID order every time, whatever order the plugins were added in.
func TestTiesOrderByID(t *testing.T) {
	for _, order := range [][]string{{"a", "b", "c"}, {"c", "a", "b"}, {"b", "c", "a"}} {
		ix := NewIndex()
		for _, p := range order {
			ix.Replace("p", []Doc{{ID: "filler", Name: "filler", Description: "nothing related"}})
			ix.Replace(p+"1", []Doc{{ID: "x_" + p + "_echo", Name: "echo", Description: "Echo a message"}})
		}
		got := ids(t, ix, Query{Text: "echo message"})
		want := []string{"x_a_echo", "x_b_echo", "x_c_echo"}
		if !slices.Equal(got, want) {
			t.Errorf("insertion order %v: got %v, want %v", order, got, want)
		}
		res, _ := ix.Search(Query{Text: "echo message"})
		for _, h := range res.Hits {
			if h.Score != 1 {
				t.Errorf("tied hit %s scored %v, want 1", h.Doc.ID, h.Score)
			}
		}
	}
}

func TestPaging(t *testing.T) {
	ix := NewIndex()
	var docs []Doc
	for i := range 30 {
		docs = append(docs, Doc{ID: fmt.Sprintf("x_p_tool_%02d", i), Name: fmt.Sprintf("tool_%02d", i),
			Description: strings.Repeat("widget ", 1+i%7) + "tool"})
	}
	ix.Replace("p", docs)
	for _, text := range []string{"", "widget tool"} {
		all := ids(t, ix, Query{Text: text})
		if len(all) != 30 {
			t.Fatalf("text %q: %d hits, want 30", text, len(all))
		}
		tests := []struct{ offset, limit, want int }{
			{0, 5, 5}, {5, 5, 5}, {28, 5, 2}, {30, 5, 0}, {100, 5, 0}, {0, 0, 30}, {10, 0, 20}, {0, -1, 30}, {3, 100, 27},
		}
		for _, tt := range tests {
			res, err := ix.Search(Query{Text: text, Offset: tt.offset, Limit: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total != 30 || len(res.Hits) != tt.want {
				t.Errorf("text %q offset %d limit %d: %d hits of %d, want %d of 30", text, tt.offset, tt.limit, len(res.Hits), res.Total, tt.want)
				continue
			}
			for i, h := range res.Hits {
				if h.Doc.ID != all[tt.offset+i] {
					t.Errorf("text %q offset %d limit %d: hit %d is %s, want %s (pages must agree with the full list)",
						text, tt.offset, tt.limit, i, h.Doc.ID, all[tt.offset+i])
				}
			}
		}
	}
}

func TestBadPattern(t *testing.T) {
	ix := fixture()
	for _, p := range []string{"[", "x_[a-", "abc\\"} {
		_, err := ix.Search(Query{Pattern: p})
		var pe *PatternError
		if !errors.As(err, &pe) || pe.Pattern != p || !errors.Is(err, path.ErrBadPattern) {
			t.Errorf("pattern %q: err = %v, want a PatternError for it", p, err)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", p)) {
			t.Errorf("pattern %q: message %q does not name it", p, err)
		}
	}
}

func TestUnicode(t *testing.T) {
	ix := NewIndex()
	ix.Replace("de", []Doc{
		{ID: "x_de_dateien_auflisten", Name: "dateien_auflisten", Description: "Listet alle Dateien im Verzeichnis ÜBERSICHTLICH auf"},
		{ID: "x_de_straße", Name: "straße", Description: "Zeigt die Straße"},
	})
	ix.Replace("ja", []Doc{{ID: "x_ja_tool", Name: "ファイル一覧", Description: "ファイル一覧 を表示します"}})
	ix.Replace("el", []Doc{{ID: "x_el_tool", Name: "ΛίσταΑρχείων", Description: "Λίστα αρχείων"}})
	tests := []struct {
		q    Query
		want string
	}{
		{Query{Text: "übersichtlich"}, "x_de_dateien_auflisten"},
		{Query{Text: "DATEIEN"}, "x_de_dateien_auflisten"},
		{Query{Text: "ファイル一覧"}, "x_ja_tool"},
		{Query{Text: "αρχείων"}, "x_el_tool"},
		{Query{Text: "ΛΊΣΤΑ"}, "x_el_tool"},
		{Query{DescriptionFilter: "übersicht"}, "x_de_dateien_auflisten"},
		{Query{DescriptionFilter: "λίστα αρχ"}, "x_el_tool"},
		{Query{Pattern: "X_DE_STRASSE"}, ""},
		{Query{Pattern: "x_de_stra?e"}, "x_de_straße"},
	}
	for _, tt := range tests {
		got := ids(t, ix, tt.q)
		if tt.want == "" && len(got) != 0 || tt.want != "" && (len(got) == 0 || got[0] != tt.want) {
			t.Errorf("%+v: got %v, want %q first", tt.q, got, tt.want)
		}
	}
	// Typo correction and Closest work on runes, not bytes.
	if got := ids(t, ix, Query{Text: "ubersichtlich"}); len(got) == 0 || got[0] != "x_de_dateien_auflisten" {
		t.Errorf("typo with a missing umlaut: got %v", got)
	}
	if got := ix.Closest("x_de_strase", 1); !slices.Equal(got, []string{"x_de_straße"}) {
		t.Errorf("Closest(x_de_strase) = %v", got)
	}
}

func TestClosest(t *testing.T) {
	ix := fixture()
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"x_k8s_list_pod", 1, []string{"x_k8s_list_pods"}},  // typo
		{"x_k8s_lsit_pods", 1, []string{"x_k8s_list_pods"}}, // swapped letters
		{"list_pods", 1, []string{"x_k8s_list_pods"}},       // prefix missing
		{"k8s_list_pods", 1, []string{"x_k8s_list_pods"}},   // part of the prefix missing
		{"X_PROM_QUERY", 1, []string{"x_prom_query"}},       // case
		{"write_file", 1, []string{"x_files_Write_File"}},
		{"list_alert", 2, []string{"x_prom_list_alerts"}}, // nothing else is near
		{"x_files_rite_file", 2, []string{"x_files_Write_File", "x_files_read_file"}},
		{"completely_unrelated_name", 3, nil},
		{"", 3, nil},
		{"query", 0, nil},
	}
	for _, tt := range tests {
		if got := ix.Closest(tt.name, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("Closest(%q, %d) = %v, want %v", tt.name, tt.n, got, tt.want)
		}
	}
}

func TestGetLen(t *testing.T) {
	ix := fixture()
	if ix.Len() != 7 {
		t.Errorf("Len = %d, want 7", ix.Len())
	}
	d, ok := ix.Get("x_prom_query")
	if !ok || d.Name != "query" || d.Plugin != "prom" {
		t.Errorf("Get(x_prom_query) = %+v, %v", d, ok)
	}
	if _, ok := ix.Get("x_prom_nope"); ok {
		t.Error("Get of an unknown ID succeeded")
	}
	// A repeated ID within a plugin keeps the last version.
	ix.Replace("dup", []Doc{{ID: "x_dup_a", Description: "first"}, {ID: "x_dup_a", Description: "second"}})
	if d, _ := ix.Get("x_dup_a"); d == nil || d.Description != "second" || ix.Len() != 8 {
		t.Errorf("duplicate ID: got %+v, Len %d", d, ix.Len())
	}
}
