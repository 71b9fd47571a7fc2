package search

import (
	"fmt"
	"slices"
)

// QualityScore is how well one ranker answers a query set.
type QualityScore struct {
	Top1      float64 // share of queries whose first hit is a right answer
	RecallAt5 float64 // share of a query's right answers in the first five hits, averaged
}

// QualityScores are one half's scores for the ranker and the plain BM25
// baseline, on the labelled catalogs alone and with distractors added.
type QualityScores struct {
	Ranker, Baseline                     QualityScore
	RankerDistracted, BaselineDistracted QualityScore
}

// QualityMiss is a tuning query whose first hit was not a right answer.
type QualityMiss struct {
	Query QualityQuery
	Got   []string // the first five hits
}

// TuningReport is the tuning half's result: scores and the ranker's misses
// (on the labelled catalogs alone) to study.
type TuningReport struct {
	Queries int
	QualityScores
	Misses []QualityMiss
}

// HeldOutReport is a held-out set's result. It has figures only: a
// held-out query that is looked at becomes a tuning query.
type HeldOutReport struct {
	Queries int
	QualityScores
}

// QualityReport compares the ranker with plain BM25 on both halves. The
// held-out half is scored whole and per file: the first set was scored
// after each method round that was kept only if it improved, so its figure
// may be optimistic; the fresh set was written after those rounds.
type QualityReport struct {
	Tools, Distractors int
	Tuning             TuningReport
	HeldOut            HeldOutReport // both held-out files together
	HeldOutFirst       HeldOutReport // queries-heldout.yaml
	HeldOutFresh       HeldOutReport // queries-heldout-fresh.yaml
}

// ranker answers a query with tool IDs, best first.
type ranker func(text string) ([]string, error)

// EvaluateQuality scores the quality set in dir (see LoadQualitySet) for the
// index and the plain BM25 baseline, each on the labelled tools alone and
// with the given number of Distractors added.
func EvaluateQuality(dir string, distractors int) (QualityReport, error) {
	set, err := LoadQualitySet(dir)
	if err != nil {
		return QualityReport{}, err
	}
	rep := QualityReport{Tools: len(set.Docs), Distractors: distractors}
	rep.Tuning.Queries = len(set.Tuning)
	heldOut := []*HeldOutReport{&rep.HeldOutFirst, &rep.HeldOutFresh} // heldOutFiles' order
	for i, qs := range set.heldOut {
		heldOut[i].Queries = len(qs)
	}
	for _, extra := range []int{0, distractors} {
		docs := slices.Concat(set.Docs, Distractors(extra))
		ix, base := indexRanker(docs), baselineRanker(docs)
		// pick returns the ranker's and the baseline's score of s for this pass.
		pick := func(s *QualityScores) (*QualityScore, *QualityScore) {
			if extra > 0 {
				return &s.RankerDistracted, &s.BaselineDistracted
			}
			return &s.Ranker, &s.Baseline
		}
		misses := &rep.Tuning.Misses
		if extra > 0 {
			misses = nil
		}
		type run struct {
			score   *QualityScore
			rank    ranker
			queries []QualityQuery
			misses  *[]QualityMiss
		}
		tr, tb := pick(&rep.Tuning.QualityScores)
		runs := []run{{tr, ix, set.Tuning, misses}, {tb, base, set.Tuning, nil}}
		for i, qs := range set.heldOut {
			hr, hb := pick(&heldOut[i].QualityScores)
			runs = append(runs, run{hr, ix, qs, nil}, run{hb, base, qs, nil})
		}
		for _, r := range runs {
			if *r.score, err = scoreQueries(r.rank, r.queries, r.misses); err != nil {
				return QualityReport{}, err
			}
		}
		if distractors == 0 {
			break
		}
	}
	rep.HeldOut = pooled(rep.HeldOutFirst, rep.HeldOutFresh)
	return rep, nil
}

// pooled is the result of parts' queries scored together: each score is
// the mean over all their queries, so the parts weigh by their counts.
func pooled(parts ...HeldOutReport) HeldOutReport {
	var out HeldOutReport
	for _, p := range parts {
		out.Queries += p.Queries
	}
	if out.Queries == 0 {
		return out
	}
	for _, p := range parts {
		w := float64(p.Queries) / float64(out.Queries)
		for _, s := range []struct{ dst, src *QualityScore }{
			{&out.Ranker, &p.Ranker}, {&out.Baseline, &p.Baseline},
			{&out.RankerDistracted, &p.RankerDistracted}, {&out.BaselineDistracted, &p.BaselineDistracted},
		} {
			s.dst.Top1 += w * s.src.Top1
			s.dst.RecallAt5 += w * s.src.RecallAt5
		}
	}
	return out
}

// indexRanker ranks through the public Search of an index holding docs.
func indexRanker(docs []Doc) ranker {
	ix := loadIndex(docs)
	return func(text string) ([]string, error) {
		res, err := ix.Search(Query{Text: text, Limit: 5})
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ids[i] = h.Doc.ID
		}
		return ids, nil
	}
}

// loadIndex loads docs into a fresh index, one Replace per plugin as the
// catalog does.
func loadIndex(docs []Doc) *Index {
	ix := NewIndex()
	byPlugin := map[string][]Doc{}
	var order []string
	for _, d := range docs {
		if _, ok := byPlugin[d.Plugin]; !ok {
			order = append(order, d.Plugin)
		}
		byPlugin[d.Plugin] = append(byPlugin[d.Plugin], d)
	}
	for _, p := range order {
		ix.Replace(p, byPlugin[p])
	}
	return ix
}

func baselineRanker(docs []Doc) ranker {
	b := newBaseline(docs)
	return func(text string) ([]string, error) { return b.search(text, 5), nil }
}

// scoreQueries averages top-1 and recall@5 over queries; when misses is not
// nil it collects the queries whose first hit was wrong.
func scoreQueries(rank ranker, queries []QualityQuery, misses *[]QualityMiss) (QualityScore, error) {
	var total QualityScore
	for _, q := range queries {
		got, err := rank(q.Text)
		if err != nil {
			return QualityScore{}, fmt.Errorf("search %v: %w", q, err)
		}
		s := scoreOne(got, q.Want)
		total.Top1 += s.Top1
		total.RecallAt5 += s.RecallAt5
		if s.Top1 == 0 && misses != nil {
			*misses = append(*misses, QualityMiss{Query: q, Got: got})
		}
	}
	if n := float64(len(queries)); n > 0 {
		total.Top1 /= n
		total.RecallAt5 /= n
	}
	return total, nil
}

// scoreOne scores one query: top-1 is 1 when the first hit is any right
// answer; recall@5 is the share of the right answers (at most five count)
// found in the first five hits.
func scoreOne(got, want []string) QualityScore {
	var s QualityScore
	if len(got) > 0 && slices.Contains(want, got[0]) {
		s.Top1 = 1
	}
	found := 0
	for i, id := range got[:min(5, len(got))] {
		if slices.Contains(want, id) && !slices.Contains(got[:i], id) {
			found++
		}
	}
	s.RecallAt5 = float64(found) / float64(min(5, len(want)))
	return s
}
