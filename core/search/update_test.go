package search

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
)

func pluginDocs(plugin string, version, n int) []Doc {
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{
			ID:          fmt.Sprintf("x_%s_tool_%d", plugin, i),
			Name:        fmt.Sprintf("tool_%d", i),
			Description: fmt.Sprintf("widget v%d %s %s", version, strings.Repeat("gadget ", i%4), plugin),
			Params:      []Param{{Name: fmt.Sprintf("arg%d", version), Description: "an argument"}},
			Labels:      map[string]string{"version": fmt.Sprint(version)},
		}
	}
	return docs
}

// After any sequence of Replace and Remove, the collection statistics and
// every ranking must equal those of an index built from scratch with the
// final tools: nothing of a replaced plugin may linger.
func TestIncrementalStats(t *testing.T) {
	ix := NewIndex()
	ix.Replace("a", pluginDocs("a", 1, 5))
	ix.Replace("b", pluginDocs("b", 1, 8))
	ix.Replace("c", pluginDocs("c", 1, 3))
	ix.Replace("a", pluginDocs("a", 2, 2)) // shrinks, new terms (v2, arg2)
	ix.Remove("b")
	ix.Remove("nope") // unknown plugin: no change
	ix.Replace("b", pluginDocs("b", 3, 4))
	ix.Replace("c", nil) // empty replace removes

	fresh := NewIndex()
	fresh.Replace("b", pluginDocs("b", 3, 4))
	fresh.Replace("a", pluginDocs("a", 2, 2))

	got, want := ix.snap.Load(), fresh.snap.Load()
	if got.n != want.n || got.sumLen != want.sumLen {
		t.Errorf("n, sumLen = %d, %v; want %d, %v", got.n, got.sumLen, want.n, want.sumLen)
	}
	if !maps.Equal(got.df, want.df) {
		t.Errorf("df = %v\nwant %v", got.df, want.df)
	}
	if !slices.Equal(got.vocab, want.vocab) || !slices.IsSorted(got.vocab) {
		t.Errorf("vocab = %v\nwant %v", got.vocab, want.vocab)
	}
	if _, ok := ix.Get("x_c_tool_0"); ok || ix.Len() != 6 {
		t.Errorf("removed plugin still visible, Len %d", ix.Len())
	}
	for _, q := range []string{"widget", "v1", "v2 gadget", "arg3", "tool", "b gadget"} {
		r1, _ := ix.Search(Query{Text: q})
		r2, _ := fresh.Search(Query{Text: q})
		if r1.Total != r2.Total || len(r1.Hits) != len(r2.Hits) {
			t.Fatalf("%q: %d/%d hits, fresh index %d/%d", q, len(r1.Hits), r1.Total, len(r2.Hits), r2.Total)
		}
		for i := range r1.Hits {
			if r1.Hits[i].Doc.ID != r2.Hits[i].Doc.ID || r1.Hits[i].Score != r2.Hits[i].Score {
				t.Errorf("%q hit %d: %s %v, fresh index %s %v", q, i,
					r1.Hits[i].Doc.ID, r1.Hits[i].Score, r2.Hits[i].Doc.ID, r2.Hits[i].Score)
			}
		}
	}
}

// Replacing one plugin must not rebuild the others: their segments are
// shared, pointer for pointer, with the previous snapshot.
func TestReplaceSharesOtherSegments(t *testing.T) {
	ix := NewIndex()
	ix.Replace("a", pluginDocs("a", 1, 3))
	ix.Replace("b", pluginDocs("b", 1, 3))
	before := ix.snap.Load()
	ix.Replace("a", pluginDocs("a", 2, 3))
	after := ix.snap.Load()
	if before.segs[1] != after.segs[1] || before.segs[0] == after.segs[0] {
		t.Error("replacing plugin a rebuilt b's segment or kept a's")
	}
	if len(before.segs) != 2 || before.segs[0].docs[0].Description == after.segs[0].docs[0].Description {
		t.Error("the old snapshot changed under its readers")
	}
}

// The caller's slice is copied: changing it afterwards does not reach the
// index.
func TestReplaceCopiesDocs(t *testing.T) {
	ix := NewIndex()
	docs := pluginDocs("a", 1, 2)
	ix.Replace("a", docs)
	docs[0].ID, docs[0].Description = "changed", "changed"
	if d, ok := ix.Get("x_a_tool_0"); !ok || d.Description == "changed" {
		t.Errorf("index follows the caller's slice: %+v", d)
	}
}

// Searches running while plugins are replaced and removed each see one
// consistent catalog: all of a plugin's tools from the same version, and a
// total that matches the hits.
func TestConcurrentSearchDuringReplace(t *testing.T) {
	ix := NewIndex()
	for _, p := range []string{"a", "b", "c"} {
		ix.Replace(p, pluginDocs(p, 0, 10))
	}
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	for w := range 2 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for v := 1; ; v++ {
				select {
				case <-stop:
					return
				default:
				}
				p := []string{"a", "b"}[w]
				if v%5 == 0 {
					ix.Remove(p)
				} else {
					ix.Replace(p, pluginDocs(p, v, 5+v%10))
				}
			}
		}()
	}
	errs := make(chan error, 4)
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for i := range 300 {
				p := []string{"a", "b", "c"}[i%3]
				q := Query{Plugin: p}
				if i%2 == 0 {
					q.Text = "widget gadget"
				}
				res, err := ix.Search(q)
				if err != nil {
					errs <- err
					return
				}
				if res.Total != len(res.Hits) {
					errs <- fmt.Errorf("plugin %s: Total %d, %d hits", p, res.Total, len(res.Hits))
					return
				}
				versions := map[string]bool{}
				for _, h := range res.Hits {
					versions[h.Doc.Labels["version"]] = true
				}
				if len(versions) > 1 {
					errs <- fmt.Errorf("plugin %s: one search saw versions %v", p, versions)
					return
				}
				_ = ix.Closest("x_a_tool_1", 2)
			}
		}()
	}
	readers.Wait()
	close(stop)
	writers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
