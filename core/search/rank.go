package search

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/sahilm/fuzzy"
)

const (
	bm25K1 = 1.2
	// Reciprocal rank fusion: a list contributes weight/(rrfK+rank). A small
	// rrfK lets the first places of a list stand out, which matters when the
	// answer is a handful of tools.
	rrfK        = 10
	bm25Weight  = 1.0
	fuzzyWeight = 0.5
	// fusionDepth is how many places of each list count in the fusion.
	fusionDepth = 100
)

// scratch is per-query working memory indexed by global doc number; pooled
// because a catalog of 100k tools would otherwise allocate megabytes per
// query. Only touched entries are non-zero between uses.
type scratch struct {
	acc, tok, fz                   []float64
	touched, tokTouched, fzTouched []int32
	sel                            []float64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch(n int) *scratch {
	sc := scratchPool.Get().(*scratch)
	if len(sc.acc) < n {
		sc.acc = make([]float64, n)
		sc.tok = make([]float64, n)
		sc.fz = make([]float64, n)
	}
	return sc
}

func (sc *scratch) release() {
	for _, g := range sc.touched {
		sc.acc[g] = 0
	}
	for _, g := range sc.fzTouched {
		sc.fz[g] = 0
	}
	sc.touched, sc.tokTouched, sc.fzTouched = sc.touched[:0], sc.tokTouched[:0], sc.fzTouched[:0]
	scratchPool.Put(sc)
}

// candidate is a matching tool with its scores from both rankers.
type candidate struct {
	doc           *Doc
	bm, fz, fused float64
}

// rank scores the tools against the query words and returns a page of the
// fused ranking.
//
// Ranks deeper than fusionDepth count as fusionDepth+1, so only the first
// fusionDepth places of each list decide a tool's fused score. That lets a
// page near the top be computed from the two lists' heads alone, with the
// same order as the full ranking: the first P tools by BM25 score at least
// bm25Weight/(rrfK+P), more than any tool outside both heads can reach
// while 2P+rrfK <= fusionDepth. Deeper pages rank everything.
func (sn *snapshot) rank(pq *parsedQuery, f *filter, offset, limit int, m *rankModel) Result {
	sc := getScratch(sn.n)
	defer sc.release()
	sn.scoreBM25F(pq.groups, f, sc)
	sn.scoreFuzzy(pq.patterns, f, sc)
	if f.perDoc {
		sn.dropFiltered(f, sc)
	}

	res := Result{Total: len(sc.touched)}
	for _, g := range sc.fzTouched {
		if sc.acc[g] == 0 {
			res.Total++
		}
	}
	if offset >= res.Total {
		return res
	}
	head := res.Total
	if limit > 0 && 2*(offset+limit)+rrfK <= fusionDepth {
		head = min(head, fusionDepth)
	}
	bmCut := sc.threshold(sc.touched, sc.acc, head)
	fzCut := sc.threshold(sc.fzTouched, sc.fz, head)

	var cands []candidate
	add := func(g int32) {
		si := sn.segOf(int(g))
		cands = append(cands, candidate{doc: sn.segs[si].docs[int(g)-sn.base[si]], bm: sc.acc[g], fz: sc.fz[g]})
	}
	for _, g := range sc.touched {
		if sc.acc[g] >= bmCut || sc.fz[g] >= fzCut {
			add(g)
		}
	}
	for _, g := range sc.fzTouched {
		if sc.acc[g] == 0 && sc.fz[g] >= fzCut {
			add(g)
		}
	}
	fuse(cands, bmCut, fzCut)
	sn.rerank(pq, cands, m)
	res.Coverage = sn.coverage(pq, &cands[0])

	top := cands[0].fused
	page := cands[offset:]
	if limit > 0 && len(page) > limit {
		page = page[:limit]
	}
	res.Hits = make([]Hit, len(page))
	for i, c := range page {
		res.Hits[i] = Hit{Doc: c.doc, Score: c.fused / top}
	}
	return res
}

// dropFiltered removes the tools the query's filters exclude from the
// scored sets, so they take no rank and do not count.
func (sn *snapshot) dropFiltered(f *filter, sc *scratch) {
	ok := func(g int32) bool {
		si := sn.segOf(int(g))
		return f.docOK(sn.segs[si], int(g)-sn.base[si])
	}
	keep := sc.touched[:0]
	for _, g := range sc.touched {
		if ok(g) {
			keep = append(keep, g)
		} else {
			sc.acc[g] = 0
		}
	}
	sc.touched = keep
	keepFz := sc.fzTouched[:0]
	for _, g := range sc.fzTouched {
		if ok(g) {
			keepFz = append(keepFz, g)
		} else {
			sc.fz[g] = 0
		}
	}
	sc.fzTouched = keepFz
}

// threshold returns the score of the n-th best of the touched docs, so that
// the docs scoring at least that are the head of the list (ties included).
func (sc *scratch) threshold(touched []int32, scores []float64, n int) float64 {
	if n >= len(touched) {
		return math.SmallestNonzeroFloat64
	}
	sc.sel = sc.sel[:0]
	for _, g := range touched {
		sc.sel = append(sc.sel, scores[g])
	}
	return nthLargest(sc.sel, n)
}

// nthLargest returns the n-th largest value (1-based) of v, reordering v.
func nthLargest(v []float64, n int) float64 {
	lo, hi, k := 0, len(v)-1, n-1
	for lo < hi {
		pivot := v[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] > pivot {
				i++
			}
			for v[j] < pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// cmpDesc orders a before b when a is larger, else falls back to then.
func cmpDesc(a, b float64, then int) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return then
}

// scoreBM25F adds each tool's BM25F score into sc.acc. Per query word, a tool
// gets the best of the word's alternative terms.
func (sn *snapshot) scoreBM25F(groups []termGroup, f *filter, sc *scratch) {
	n := float64(sn.n)
	var normB [numFields]float64 // b / average field length
	for fi := range normB {
		if sn.sumLen[fi] > 0 {
			normB[fi] = fieldB[fi] * n / float64(sn.sumLen[fi])
		}
	}
	for _, g := range groups {
		for _, wt := range g {
			df := float64(sn.df[wt.term])
			if df == 0 {
				continue
			}
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			for si, s := range sn.segs {
				if !f.segOK(s) {
					continue
				}
				base := int32(sn.base[si])
				for _, p := range s.postings[wt.term] {
					fl := &s.fieldLen[p.doc]
					var tf float64
					for fi, c := range p.tf {
						if c != 0 {
							tf += fieldWeight[fi] * float64(c) / (1 - fieldB[fi] + normB[fi]*float64(fl[fi]))
						}
					}
					v := wt.w * idf * tf / (bm25K1 + tf)
					gd := base + int32(p.doc)
					if v > sc.tok[gd] {
						if sc.tok[gd] == 0 {
							sc.tokTouched = append(sc.tokTouched, gd)
						}
						sc.tok[gd] = v
					}
				}
			}
		}
		for _, gd := range sc.tokTouched {
			if sc.acc[gd] == 0 {
				sc.touched = append(sc.touched, gd)
			}
			sc.acc[gd] += sc.tok[gd]
			sc.tok[gd] = 0
		}
		sc.tokTouched = sc.tokTouched[:0]
	}
}

// nameSource feeds the names that passed the character-set check to the
// fuzzy matcher.
type nameSource struct {
	names []string
	docs  []int32
}

func (ns *nameSource) String(i int) string { return ns.names[i] }
func (ns *nameSource) Len() int            { return len(ns.names) }

// scoreFuzzy adds the fuzzy-match score of each tool name against each
// pattern into sc.fz. Only good matches count: the matcher rewards
// characters that start words and run together, so a positive score means
// the pattern reads like an abbreviation of the name.
func (sn *snapshot) scoreFuzzy(patterns []string, f *filter, sc *scratch) {
	src := &nameSource{}
	for _, pat := range patterns {
		pm := runeMask(pat)
		pr := []rune(strings.ToLower(pat))
		src.names, src.docs = src.names[:0], src.docs[:0]
		for si, s := range sn.segs {
			if !f.segOK(s) {
				continue
			}
			for _, nr := range s.names {
				if nr.mask&pm == pm && abbreviates(pr, nr.name) {
					src.names = append(src.names, nr.name)
					src.docs = append(src.docs, int32(sn.base[si])+int32(nr.doc))
				}
			}
		}
		for _, m := range fuzzy.FindFromNoSort(pat, src) {
			if m.Score <= 0 {
				continue
			}
			g := src.docs[m.Index]
			if sc.fz[g] == 0 {
				sc.fzTouched = append(sc.fzTouched, g)
			}
			sc.fz[g] += float64(m.Score)
		}
	}
}

// abbreviates reports whether pat (lowercase) can be read out of name in
// order, starting at the start of one of name's words. It is the cheap part
// of the fuzzy matcher's test, without allocation; names that fail it would
// not match, or match only scattered letters that score nothing.
func abbreviates(pat []rune, name string) bool {
	i := 0
	prev := classSep
	for _, r := range name {
		c := classify(r)
		if i == 0 {
			wordStart := c != classSep && (prev == classSep || prev == classLower && c == classUpper ||
				(prev == classDigit) != (c == classDigit))
			if wordStart && unicode.ToLower(r) == pat[0] {
				i = 1
			}
		} else if unicode.ToLower(r) == pat[i] {
			i++
		}
		if i == len(pat) {
			return true
		}
		prev = c
	}
	return false
}

// segOf returns the index of the segment holding global doc number g.
func (sn *snapshot) segOf(g int) int {
	return sort.Search(len(sn.base), func(i int) bool { return sn.base[i] > g }) - 1
}

// fuse orders cands by reciprocal rank fusion of their BM25F and fuzzy
// ranks. Equal scores share a rank (1, 2, 2, 4, ...); equal fused scores
// order by BM25F, then fuzzy score, then ID, so the order never depends on
// map or segment order. Tools below a list's cut rank after its head.
func fuse(cands []candidate, bmCut, fzCut float64) {
	bmRank := make([]int, len(cands))
	fzRank := make([]int, len(cands))
	ranks(cands, bmRank, bmCut, func(c *candidate) float64 { return c.bm })
	ranks(cands, fzRank, fzCut, func(c *candidate) float64 { return c.fz })
	for i := range cands {
		c := &cands[i]
		if bmRank[i] > 0 {
			c.fused += bm25Weight / float64(rrfK+min(bmRank[i], fusionDepth+1))
		}
		if fzRank[i] > 0 {
			c.fused += fuzzyWeight / float64(rrfK+min(fzRank[i], fusionDepth+1))
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmpDesc(a.fused, b.fused, cmpDesc(a.bm, b.bm, cmpDesc(a.fz, b.fz, strings.Compare(a.doc.ID, b.doc.ID))))
	})
}

// ranks sets rank[i] to cands[i]'s competition rank by score among the
// candidates at or above cut, and to fusionDepth+1 for those below it with a
// positive score (the cut is only ever placed at fusionDepth).
func ranks(cands []candidate, rank []int, cut float64, score func(*candidate) float64) {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmpDesc(score(&cands[a]), score(&cands[b]), 0)
	})
	r := 0
	for pos, i := range order {
		s := score(&cands[i])
		switch {
		case s <= 0:
			return
		case s < cut:
			rank[i] = fusionDepth + 1
		default:
			if pos == 0 || s != score(&cands[order[pos-1]]) {
				r = pos + 1
			}
			rank[i] = r
		}
	}
}
