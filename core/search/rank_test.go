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
