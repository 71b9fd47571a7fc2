package search

import (
	"slices"
)

// RerankSample is one tuning query as the reranker's fitting sees it: the
// features of the fused ranking's first places, before reordering, and
// which of those tools answer the query.
type RerankSample struct {
	Query    string
	Features [][]float64
	Right    []bool
	Wanted   int // right answers that count for recall@5: at most five
}

// RerankFeatureNames names the features, in order.
var RerankFeatureNames = []string{"fused", "bm25", "fuzzy", "cover", "cover_idf", "name", "name_idf",
	"summary_idf", "explain", "explain_all", "param_idf", "rank", "action", "other_action", "other_method"}

// TuningSamples returns a sample per tuning query of the quality set in dir,
// ranked over the labelled tools plus the given number of distractors. It
// reads the tuning half only: the held-out half must not shape the model.
func TuningSamples(dir string, distractors int) ([]RerankSample, error) {
	set, err := LoadQualitySet(dir)
	if err != nil {
		return nil, err
	}
	ix := loadIndex(slices.Concat(set.Docs, Distractors(distractors)))
	out := make([]RerankSample, 0, len(set.Tuning))
	for _, q := range set.Tuning {
		s := RerankSample{Query: q.Text, Wanted: min(5, len(q.Want))}
		observe := func(head []candidate, xs [][numFeatures]float64) {
			for i, c := range head {
				s.Features = append(s.Features, slices.Clone(xs[i][:]))
				s.Right = append(s.Right, slices.Contains(q.Want, c.doc.ID))
			}
		}
		if _, err := ix.search(Query{Text: q.Text, Limit: 5}, &rankModel{observe: observe}); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
