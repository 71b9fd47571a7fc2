package search

import (
	"slices"
	"testing"
)

// rerank reorders the head by the model and nothing else: the scores shown
// stay in place, so they still fall with the rank.
func TestRerankReordersHeadOnly(t *testing.T) {
	ix := NewIndex()
	ix.Replace("cal", []Doc{
		{ID: "x_cal_event_invite_attendee", Name: "event_invite_attendee", Description: "Invite an attendee to a calendar event"},
		{ID: "x_cal_event_create", Name: "event_create", Description: "Create an event in a calendar"},
		{ID: "x_cal_event_list", Name: "event_list", Description: "List the events of a calendar"},
	})
	sn := ix.snap.Load()
	pq := sn.parseQuery("create a calendar event")
	doc := func(id string) *Doc { d, _ := ix.Get(id); return d }
	cands := []candidate{
		{doc: doc("x_cal_event_invite_attendee"), bm: 3, fused: 0.3},
		{doc: doc("x_cal_event_list"), bm: 2, fused: 0.2},
		{doc: doc("x_cal_event_create"), bm: 1, fused: 0.1},
	}
	var w [numFeatures]float64
	w[featExplAll] = 1 // the request accounts for every word of the name
	sn.rerank(pq, cands, &rankModel{weights: &w})
	var got []string
	var fused []float64
	for _, c := range cands {
		got = append(got, c.doc.ID)
		fused = append(fused, c.fused)
	}
	if want := []string{"x_cal_event_create", "x_cal_event_invite_attendee", "x_cal_event_list"}; !slices.Equal(got, want) {
		t.Errorf("reranked %v, want %v (the fully explained name first, the rest in fused order)", got, want)
	}
	if !slices.Equal(fused, []float64{0.3, 0.2, 0.1}) {
		t.Errorf("fused scores %v moved with their tools, want them kept in place", fused)
	}

	var seen [][numFeatures]float64
	sn.rerank(pq, cands, &rankModel{observe: func(_ []candidate, xs [][numFeatures]float64) { seen = xs }})
	if len(seen) != 3 || got[0] != cands[0].doc.ID {
		t.Errorf("a model without weights must only observe: saw %d, order changed to %s", len(seen), cands[0].doc.ID)
	}
	for i, x := range seen {
		for f, v := range x {
			if v < 0 || v > 1 {
				t.Errorf("candidate %d feature %s = %v, want within [0, 1]", i, RerankFeatureNames[f], v)
			}
		}
	}
}

// The fitting script names the reranker's features; the names must follow
// the features one for one.
func TestRerankFeatureNames(t *testing.T) {
	if len(RerankFeatureNames) != numFeatures || len(rerankWeights) != numFeatures {
		t.Errorf("%d feature names and %d weights for %d features", len(RerankFeatureNames), len(rerankWeights), numFeatures)
	}
}
