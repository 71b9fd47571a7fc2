package search

import (
	"os"
	"slices"
	"testing"
)

// TestTuningHalf scores the tuning half alone, on the labelled tools and
// among distractors, and lists its misses: the loop for trying a change
// without scoring the held-out half. Set TOOLGATE_TUNING=1 to run it.
func TestTuningHalf(t *testing.T) {
	if os.Getenv("TOOLGATE_TUNING") == "" {
		t.Skip("set TOOLGATE_TUNING=1 to score the tuning half")
	}
	set, err := LoadQualitySet("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, extra := range []int{0, 10000} {
		var misses []QualityMiss
		s, err := scoreQueries(indexRanker(slices.Concat(set.Docs, Distractors(extra))), set.Tuning, &misses)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tuning +%d distractors: top-1 %.3f recall@5 %.3f", extra, s.Top1, s.RecallAt5)
		if extra == 0 && os.Getenv("TOOLGATE_TUNING") == "v" {
			for _, m := range misses {
				t.Logf("miss: %q want %v got %v", m.Query.Text, m.Query.Want, m.Got)
			}
		}
	}
}
