package search

import (
	"fmt"
	"slices"
	"testing"
)

// A typo of a word in most tools still means that word: the likeliest
// correction is kept past the cap on common alternatives, and a typo the
// stemmer cuts short ("raed" to "rae") is corrected as typed.
func TestTypoOfCommonWord(t *testing.T) {
	var docs []Doc
	for i := range 60 { // "list" and "file" in more tools than the cap allows
		docs = append(docs, Doc{ID: fmt.Sprintf("x_p_list_thing%d", i), Name: fmt.Sprintf("list_thing%d", i),
			Description: fmt.Sprintf("List the thing%d items of a file", i)})
	}
	docs = append(docs,
		Doc{ID: "x_p_directory", Name: "directory", Description: "A directory"},
		Doc{ID: "x_p_list_directory", Name: "list_directory", Description: "List the entries of a directory"},
		Doc{ID: "x_p_read_file", Name: "read_file", Description: "Read a file's contents"},
		Doc{ID: "x_p_fill_form", Name: "fill_form", Description: "Fill a form field with a value"},
	)
	ix := NewIndex()
	ix.Replace("p", docs)
	sn := ix.snap.Load()
	for typo, want := range map[string]string{"lsit": "list", "fiel": "file", "raed": "read"} {
		pq := sn.parseQuery(typo)
		if len(pq.groups) != 1 || !slices.ContainsFunc(pq.groups[0], func(w weightedTerm) bool { return w.term == want && w.w == typoWeight }) {
			t.Errorf("%q reads as %v, want %q at weight %v among them", typo, pq.groups, want, typoWeight)
		}
	}
	for q, want := range map[string]string{
		"lsit directory": "x_p_list_directory",
		"raed fiel":      "x_p_read_file",
	} {
		if got := ids(t, ix, Query{Text: q}); len(got) == 0 || got[0] != want {
			t.Errorf("%q ranks %v, want %s first", q, got, want)
		}
	}
}

func TestLikeliestCorrection(t *testing.T) {
	df := map[string]int32{"file": 58, "fill": 3, "field": 9, "fiele": 100}
	cands := []typoCandidate{{"fill", 1}, {"file", 1}, {"field", 1}, {"fiele", 2}}
	if got, ok := likeliest(cands, df); !ok || got.term != "file" {
		t.Errorf("likeliest = %v, %v; want file: the commonest at the least distance", got, ok)
	}
	if _, ok := likeliest(nil, df); ok {
		t.Error("likeliest(nil) reported a candidate")
	}
}
