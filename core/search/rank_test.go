package search

import (
	"math/rand/v2"
	"testing"
)

// A page must be exactly that slice of the full ranking, however the page
// is placed: the head-only shortcut must never change the order.
func TestPagesAgreeWithFullRanking(t *testing.T) {
	ix := buildIndex(syntheticCatalog(3000, 500))
	r := rand.New(rand.NewPCG(7, 7))
	queries := append([]string{"lstpods", "get list", "delete pods namespace", "xyz"}, benchQueries...)
	for _, text := range queries {
		for _, q := range []Query{{Text: text}, {Text: text, Labels: map[string]string{"readOnly": "true"}}, {Text: text, Plugin: "k8s-0"}} {
			full, err := ix.Search(q)
			if err != nil {
				t.Fatal(err)
			}
			for range 8 {
				q.Offset, q.Limit = r.IntN(60), 1+r.IntN(20)
				page, _ := ix.Search(q)
				if page.Total != full.Total {
					t.Fatalf("%+v: Total %d, full ranking %d", q, page.Total, full.Total)
				}
				for i, h := range page.Hits {
					want := full.Hits[q.Offset+i]
					if h.Doc.ID != want.Doc.ID || h.Score != want.Score {
						t.Fatalf("%+v: hit %d is %s %v, full ranking has %s %v", q, i, h.Doc.ID, h.Score, want.Doc.ID, want.Score)
					}
				}
				if wantLen := min(q.Limit, max(0, full.Total-q.Offset)); len(page.Hits) != wantLen {
					t.Fatalf("%+v: %d hits, want %d", q, len(page.Hits), wantLen)
				}
			}
		}
	}
}

// A verb most tools start with must not outweigh the nouns that say which
// tool is meant, even where the catalog is too small for IDF to tell; nor
// may flag labels like readOnly=true lend tools the word "read".
func TestCommonWordsCountLess(t *testing.T) {
	ix := NewIndex()
	ix.Replace("k", []Doc{
		{ID: "x_k_get_pod", Name: "get_pod", Description: "Get a pod", Labels: map[string]string{"readOnly": "true"}},
		{ID: "x_k_get_node", Name: "get_node", Description: "Get a node", Labels: map[string]string{"readOnly": "true"}},
		{ID: "x_k_pod_logs", Name: "pod_logs", Description: "Logs of a pod"},
		{ID: "x_k_node_logs", Name: "node_logs", Description: "Logs of a node"},
		{ID: "x_k_restart_pod", Name: "restart_pod", Description: "Restart a pod"},
		{ID: "x_k_read_secret", Name: "read_secret", Description: "Read a secret"},
		{ID: "x_k_tag", Name: "tag", Description: "Tag a resource", Labels: map[string]string{"team": "platform"}},
	})
	for q, want := range map[string]string{
		"get pod logs": "x_k_pod_logs",
		"get pod":      "x_k_get_pod",
		"read":         "x_k_read_secret",
		"platform":     "x_k_tag",
	} {
		if got := ids(t, ix, Query{Text: q}); len(got) == 0 || got[0] != want {
			t.Errorf("Search(%q) = %v, want %s first", q, got, want)
		}
	}
	for _, q := range []string{"only", "true", "readonly"} {
		if got := ids(t, ix, Query{Text: q}); len(got) != 0 {
			t.Errorf("Search(%s) = %v: the readOnly=true label must not match", q, got)
		}
	}
}

// TestWhatAToolDoesOutranksItsNotes: a description's first sentence says
// what the tool does; a word in its usage notes says less.
func TestWhatAToolDoesOutranksItsNotes(t *testing.T) {
	ix := NewIndex()
	ix.Replace("p", []Doc{
		{ID: "x_p_a", Name: "a", Description: "Deploy the application to the cluster. Then watch the rollout and check the logs for errors."},
		{ID: "x_p_b", Name: "b", Description: "Show the logs of the application, newest first. Use it after a deployment to the cluster."},
	})
	got := ids(t, ix, Query{Text: "logs", Limit: 2})
	if len(got) != 2 || got[0] != "x_p_b" {
		t.Errorf("Search(logs) = %v, want x_p_b first", got)
	}
	for in, want := range map[string]string{"Read a file. Then more.": "Read a file", "One line\nmore": "One line", "v1.2 of it": "v1.2 of it"} {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
