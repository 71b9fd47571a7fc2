package search

import (
	"math"
	"slices"
	"testing"
)

func TestScoreOne(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want []string
		top1, r5  float64
	}{
		{"first right", []string{"a", "b"}, []string{"a"}, 1, 1},
		{"second right", []string{"b", "a"}, []string{"a"}, 0, 1},
		{"sixth right", []string{"b", "c", "d", "e", "f", "a"}, []string{"a"}, 0, 0},
		{"one of two", []string{"a", "c"}, []string{"a", "b"}, 1, 0.5},
		{"both of two", []string{"c", "b", "a"}, []string{"a", "b"}, 0, 1},
		{"no hits", nil, []string{"a"}, 0, 0},
		{"seven wanted, five found", []string{"a", "b", "c", "d", "e"}, []string{"a", "b", "c", "d", "e", "f", "g"}, 1, 1},
		{"repeated hit counts once", []string{"a", "a"}, []string{"a", "b"}, 1, 0.5},
	} {
		s := scoreOne(c.got, c.want)
		if s.Top1 != c.top1 || s.RecallAt5 != c.r5 {
			t.Errorf("%s: got top-1 %v recall@5 %v, want %v %v", c.name, s.Top1, s.RecallAt5, c.top1, c.r5)
		}
	}
}

func TestScoreQueries(t *testing.T) {
	answers := map[string][]string{"q1": {"a"}, "q2": {"x", "b"}, "q3": {"c", "d"}, "q4": nil}
	rank := func(text string) ([]string, error) { return answers[text], nil }
	queries := []QualityQuery{
		{Text: "q1", Want: []string{"a"}},      // top-1 1, recall 1
		{Text: "q2", Want: []string{"b"}},      // top-1 0, recall 1
		{Text: "q3", Want: []string{"c", "e"}}, // top-1 1, recall 0.5
		{Text: "q4", Want: []string{"z"}},      // top-1 0, recall 0
	}
	var misses []QualityMiss
	s, err := scoreQueries(rank, queries, &misses)
	if err != nil {
		t.Fatal(err)
	}
	if s.Top1 != 0.5 || math.Abs(s.RecallAt5-0.625) > 1e-12 {
		t.Errorf("got top-1 %v recall@5 %v, want 0.5 0.625", s.Top1, s.RecallAt5)
	}
	var missed []string
	for _, m := range misses {
		missed = append(missed, m.Query.Text)
	}
	if !slices.Equal(missed, []string{"q2", "q4"}) || !slices.Equal(misses[0].Got, []string{"x", "b"}) {
		t.Errorf("misses = %+v, want q2 (got [x b]) and q4", misses)
	}
	if _, err := scoreQueries(rank, queries, nil); err != nil {
		t.Fatal(err)
	}
}

func TestBaselineRanksByBM25(t *testing.T) {
	b := newBaseline([]Doc{
		{ID: "x_p_read_file", Name: "read_file", Description: "Read a file from disk"},
		{ID: "x_p_write_file", Name: "write_file", Description: "Write a file to disk"},
		{ID: "x_p_echo", Name: "echo", Description: "Echo text back"},
	})
	if got := b.search("read file", 5); !slices.Equal(got, []string{"x_p_read_file", "x_p_write_file"}) {
		t.Errorf("read file: got %v", got)
	}
	if got := b.search("Reading", 5); len(got) != 0 {
		t.Errorf("the baseline has no stemming, yet Reading found %v", got)
	}
}

func TestDistractors(t *testing.T) {
	a, b := Distractors(10000), Distractors(10000)
	if len(a) != 10000 {
		t.Fatalf("got %d distractors, want 10000", len(a))
	}
	labelled, err := loadCatalogs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	taken := map[string]bool{}
	for _, d := range labelled {
		taken[d.ID] = true
	}
	plugins := map[string]bool{}
	for i, d := range a {
		if d.ID != b[i].ID || d.Description != b[i].Description || len(d.Params) != len(b[i].Params) {
			t.Fatalf("distractor %d differs between runs: %+v vs %+v", i, d, b[i])
		}
		if taken[d.ID] {
			t.Fatalf("distractor %s repeats an ID", d.ID)
		}
		taken[d.ID] = true
		if d.ID != "x_"+d.Plugin+"_"+d.Name || d.Description == "" || len(d.Params) == 0 {
			t.Fatalf("distractor %+v is not a full tool", d)
		}
		plugins[d.Plugin] = true
	}
	if len(plugins) < 100 {
		t.Errorf("distractors span %d plugins, want a realistic spread of at least 100", len(plugins))
	}
}
