package search

import (
	"slices"
	"testing"
)

// realCatalog indexes the captured catalogs of real MCP servers and of
// toolgate's own plugins, all of them or only those named.
func realCatalog(t *testing.T, only ...string) *Index {
	t.Helper()
	docs, err := loadCatalogs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex()
	byPlugin := map[string][]Doc{}
	for _, d := range docs {
		if len(only) == 0 || slices.Contains(only, d.Plugin) {
			byPlugin[d.Plugin] = append(byPlugin[d.Plugin], d)
		}
	}
	for p, ds := range byPlugin {
		ix.Replace(p, ds)
	}
	return ix
}

func TestPluginSummaries(t *testing.T) {
	sums := realCatalog(t, "k8s", "prom", "filesystem", "memory", "everything", "thinking").PluginSummaries(5)
	if len(sums) != 6 {
		t.Fatalf("got %d summaries, want one per plugin (6)", len(sums))
	}
	for _, s := range sums {
		if s.Tools == 0 || len(s.Words) == 0 || len(s.Words) > 5 {
			t.Errorf("%s: %d tools, words %v; want tools and 1-5 words", s.Plugin, s.Tools, s.Words)
		}
		if slices.Contains(s.Words, "list") || slices.Contains(s.Words, "get") {
			t.Errorf("%s: words %v hold a generic verb", s.Plugin, s.Words)
		}
	}
	k8s := sums[slices.IndexFunc(sums, func(s PluginSummary) bool { return s.Plugin == "k8s" })]
	if !slices.Contains(k8s.Words[:2], "resource") || !slices.Contains(k8s.Words, "rollout") {
		t.Errorf("k8s words %v, want resource among the first two and rollout among them (the nouns of most of its tool names)", k8s.Words)
	}
}

// TestCoverage: the best match of a request the catalog can answer covers
// its words; the best match of one it cannot is flagged as a guess.
func TestCoverage(t *testing.T) {
	ix := realCatalog(t, "k8s", "prom", "filesystem", "memory", "everything", "thinking")
	for _, tt := range []struct {
		q              string
		atLeast, below float64
	}{
		{"list pods", 1, 1.01},
		{"read a file", 1, 1.01},
		{"bake a chocolate cake", 0, 0.5},
		{"book a flight to paris", 0, 0.5},
	} {
		res, err := ix.Search(Query{Text: tt.q, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Coverage < tt.atLeast || res.Coverage >= tt.below {
			t.Errorf("Search(%q).Coverage = %.2f, want in [%.2f, %.2f)", tt.q, res.Coverage, tt.atLeast, tt.below)
		}
	}
	if res, _ := ix.Search(Query{Plugin: "k8s"}); res.Coverage != 1 {
		t.Errorf("Coverage without text = %v, want 1", res.Coverage)
	}
}
