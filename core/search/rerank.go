package search

import (
	"math"
	"slices"
	"strings"
)

// The fused ranking scores a tool by how well its text matches the words of
// a request, word by word. The first places are then often near twins of
// one plugin ("event_create", "event_invite_attendee") told apart only by which
// of them the request explains as a whole: the one whose name the request's
// words account for, whose summary covers the rare words and not only the
// common ones. rerank reorders the head of the fused ranking by a linear
// model over such features, fitted by scripts/fit-reranker.

// rerankDepth is how many of the fused ranking's first places the model
// reorders. Deeper places keep their fused order.
const rerankDepth = 20

// The features the model reads, each in [0, 1].
const (
	featFused       = iota // fused score relative to the best
	featBM25               // BM25F score relative to the best
	featFuzzy              // fuzzy name score relative to the best
	featCover              // share of the request's words the tool answers
	featCoverIDF           // the same, each word weighted by its IDF
	featName               // share of the request's words its name answers
	featNameIDF            // the same, IDF-weighted
	featSummary            // share of the request's words its first sentence answers, IDF-weighted
	featExplain            // share of the name's words the request accounts for
	featExplAll            // 1 when the request accounts for every word of the name
	featParam              // share of the request's words its parameters answer, IDF-weighted
	featRank               // 1/position in the fused ranking
	featAction             // the request asks for what the tool does: its description's first word
	featOtherAction        // the request asks for what another tool of the head does, not this one
	featOtherMethod        // its name says a standard method (verbs.go) other than the one the request asks for
	numFeatures
)

// termInfo is what the request makes of one index term: the group (query
// word) it belongs to and how much a match on it is worth next to that word.
type termInfo struct {
	group int
	rel   float64
}

// queryView is the request prepared once for computing features.
type queryView struct {
	terms  map[string]termInfo
	idf    []float64 // per group, the IDF of its best-known term
	idfSum float64
}

func (sn *snapshot) viewQuery(pq *parsedQuery) *queryView {
	v := &queryView{terms: map[string]termInfo{}, idf: make([]float64, len(pq.groups))}
	n := float64(max(sn.n, 1))
	for gi, g := range pq.groups {
		top := 0.0
		for _, wt := range g {
			top = max(top, wt.w)
		}
		for _, wt := range g {
			rel := wt.w / top
			if ti, ok := v.terms[wt.term]; !ok || ti.rel < rel {
				v.terms[wt.term] = termInfo{gi, rel}
			}
			df := float64(sn.df[wt.term])
			if df > 0 {
				v.idf[gi] = max(v.idf[gi], rel*math.Log(1+(n-df+0.5)/(df+0.5)))
			}
		}
		v.idfSum += v.idf[gi]
	}
	return v
}

// features fills x with the features of candidate c at position pos of the
// fused ranking.
func (sn *snapshot) features(pq *parsedQuery, v *queryView, c *candidate, pos int, best *candidate, x *[numFeatures]float64) {
	*x = [numFeatures]float64{}
	x[featFused] = c.fused / best.fused
	x[featRank] = 1 / float64(pos+1)
	seg, doc := sn.docRef(c.doc)
	if seg == nil || len(pq.groups) == 0 {
		return
	}
	if ti, ok := v.terms[seg.actionOf(doc)]; ok {
		x[featAction] = ti.rel
	}
	var any, name, summary, param [64]float64
	ng := min(len(pq.groups), len(any))
	for term, ti := range v.terms {
		if ti.group >= ng {
			continue
		}
		ps := seg.postings[term]
		i, ok := slices.BinarySearchFunc(ps, doc, func(p posting, d uint32) int { return int(p.doc) - int(d) })
		if !ok {
			continue
		}
		tf := &ps[i].tf
		g := ti.group
		any[g] = max(any[g], ti.rel)
		if tf[fieldName] > 0 {
			name[g] = max(name[g], ti.rel)
		}
		if tf[fieldSummary] > 0 {
			summary[g] = max(summary[g], ti.rel)
		}
		if tf[fieldParamName] > 0 || tf[fieldParamEnum] > 0 {
			param[g] = max(param[g], ti.rel)
		}
	}
	for g := range ng {
		x[featCover] += any[g]
		x[featName] += name[g]
		if v.idfSum > 0 {
			w := v.idf[g] / v.idfSum
			x[featCoverIDF] += w * any[g]
			x[featNameIDF] += w * name[g]
			x[featSummary] += w * summary[g]
			x[featParam] += w * param[g]
		}
	}
	x[featCover] /= float64(ng)
	x[featName] /= float64(ng)

	explained, total := 0.0, 0
	for _, id := range seg.nameTermsOf(doc) {
		t := seg.terms[id]
		if t == seg.pluginTerm {
			continue // a server's tools often repeat its name: "brave_web_search"
		}
		total++
		if ti, ok := v.terms[t]; ok {
			explained += ti.rel
		}
	}
	x[featOtherMethod] = otherMethod(v, seg, doc)
	if total > 0 {
		x[featExplain] = explained / float64(total)
		if explained == float64(total) {
			x[featExplAll] = 1
		}
	}
}

// headFeatures computes the features of the first k candidates.
func (sn *snapshot) headFeatures(pq *parsedQuery, cands []candidate, k int) [][numFeatures]float64 {
	v := sn.viewQuery(pq)
	maxBM, maxFz := 0.0, 0.0
	for i := range k {
		maxBM = max(maxBM, cands[i].bm)
		maxFz = max(maxFz, cands[i].fz)
	}
	xs := make([][numFeatures]float64, k)
	for i := range k {
		c := &cands[i]
		sn.features(pq, v, c, i, &cands[0], &xs[i])
		if maxBM > 0 {
			xs[i][featBM25] = c.bm / maxBM
		}
		if maxFz > 0 {
			xs[i][featFuzzy] = c.fz / maxFz
		}
	}
	// The request names what a tool of the head does: the others do
	// something else.
	asked := false
	for i := range k {
		asked = asked || xs[i][featAction] > 0
	}
	for i := range k {
		if asked && xs[i][featAction] == 0 {
			xs[i][featOtherAction] = 1
		}
	}
	return xs
}

// rerank reorders the first rerankDepth candidates by the model's score.
// The fused scores of those places stay where they were, so the scores
// shown still fall with the rank and the best is still 1.
func (sn *snapshot) rerank(pq *parsedQuery, cands []candidate, m *rankModel) {
	k := min(rerankDepth, len(cands))
	if k < 2 || m == nil {
		return
	}
	xs := sn.headFeatures(pq, cands, k)
	if m.observe != nil {
		m.observe(cands[:k], xs)
	}
	if m.weights == nil {
		return
	}
	type scored struct {
		c     candidate
		model float64
	}
	head := make([]scored, k)
	fused := make([]float64, k)
	for i := range k {
		s := 0.0
		for f, w := range m.weights {
			s += w * xs[i][f]
		}
		head[i] = scored{cands[i], s}
		fused[i] = cands[i].fused
	}
	slices.SortStableFunc(head, func(a, b scored) int {
		return cmpDesc(a.model, b.model, cmpDesc(a.c.fused, b.c.fused, strings.Compare(a.c.doc.ID, b.c.doc.ID)))
	})
	for i := range k {
		cands[i] = head[i].c
		cands[i].fused = fused[i]
	}
}

// rankModel is how the head of the fused ranking is reordered.
type rankModel struct {
	weights *[numFeatures]float64 // nil: keep the fused order
	// observe, when set, sees the head and its features before the
	// reordering; the fitting of the weights reads them through it.
	observe func(head []candidate, xs [][numFeatures]float64)
}

// otherMethod is 1 when the request asks for a standard method (verbs.go)
// and the tool's name says one, but not that one: "create a message queue"
// against queue_send_message is not, against queue_delete it is.
func otherMethod(v *queryView, seg *segment, doc uint32) float64 {
	var asked, named [8]bool
	anyAsked := false
	for t := range v.terms {
		if c, ok := methodOf[t]; ok {
			asked[c], anyAsked = true, true
		}
	}
	if !anyAsked {
		return 0
	}
	anyNamed := false
	for _, id := range seg.nameTermsOf(doc) {
		if c, ok := methodOf[seg.terms[id]]; ok {
			if asked[c] {
				return 0
			}
			named[c], anyNamed = true, true
		}
	}
	if anyNamed {
		return 1
	}
	return 0
}
