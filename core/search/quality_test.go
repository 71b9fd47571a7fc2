package search

import "testing"

// TestQuality holds the ranker to its bar on real MCP servers' tools and
// shows how far plain BM25 falls short on the same queries.
func TestQuality(t *testing.T) {
	rep, err := EvaluateQuality("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tools, %d queries", rep.Tools, rep.Queries)
	t.Logf("ranker:   top-1 %.3f  recall@5 %.3f", rep.Ranker.Top1, rep.Ranker.RecallAt5)
	t.Logf("baseline: top-1 %.3f  recall@5 %.3f", rep.Baseline.Top1, rep.Baseline.RecallAt5)
	for _, m := range rep.Misses {
		t.Logf("miss: %q want %v got %v", m.Query, m.Want, m.Got)
	}
	if rep.Queries < 60 {
		t.Errorf("quality set has %d queries, want at least 60", rep.Queries)
	}
	if rep.Ranker.Top1 < 0.8 {
		t.Errorf("top-1 = %.3f, want >= 0.8", rep.Ranker.Top1)
	}
	if rep.Ranker.RecallAt5 < 0.95 {
		t.Errorf("recall@5 = %.3f, want >= 0.95", rep.Ranker.RecallAt5)
	}
}
