package search

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

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
)

// scratch is per-query working memory indexed by global doc number; pooled
// because a catalog of 100k tools would otherwise allocate megabytes per
// query. Only touched entries are non-zero between uses.
type scratch struct {
	acc, tok, fz                   []float64
	touched, tokTouched, fzTouched []int32
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
	doc       *Doc
	bm, fz    float64
	fused     float64
	bmRank    int
	fuzzyRank int
}

// rank scores the tools against the query words and returns a page of the
// fused ranking.
func (sn *snapshot) rank(groups []termGroup, patterns []string, f *filter, offset, limit int) Result {
	sc := getScratch(sn.n)
	defer sc.release()
	sn.scoreBM25F(groups, f, sc)
	sn.scoreFuzzy(patterns, f, sc)

	cands := make([]candidate, 0, len(sc.touched)+len(sc.fzTouched))
	collect := func(g int32) {
		si := sn.segOf(int(g))
		s, d := sn.segs[si], int(g)-sn.base[si]
		if f.docOK(s, d) {
			cands = append(cands, candidate{doc: s.docs[d], bm: sc.acc[g], fz: sc.fz[g]})
		}
	}
	for _, g := range sc.touched {
		collect(g)
	}
	for _, g := range sc.fzTouched {
		if sc.acc[g] == 0 { // not collected above
			collect(g)
		}
	}
	fuse(cands)

	res := Result{Total: len(cands)}
	if offset >= len(cands) {
		return res
	}
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
		src.names, src.docs = src.names[:0], src.docs[:0]
		for si, s := range sn.segs {
			if !f.segOK(s) {
				continue
			}
			for _, nr := range s.names {
				if nr.mask&pm == pm {
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

// segOf returns the index of the segment holding global doc number g.
func (sn *snapshot) segOf(g int) int {
	return sort.Search(len(sn.base), func(i int) bool { return sn.base[i] > g }) - 1
}

// fuse orders cands by reciprocal rank fusion of their BM25F and fuzzy
// ranks; equal scores share a rank, and equal fused scores order by ID.
func fuse(cands []candidate) {
	assignRanks(cands, func(c *candidate) float64 { return c.bm }, func(c *candidate, r int) { c.bmRank = r })
	assignRanks(cands, func(c *candidate) float64 { return c.fz }, func(c *candidate, r int) { c.fuzzyRank = r })
	for i := range cands {
		c := &cands[i]
		if c.bmRank > 0 {
			c.fused += bm25Weight / float64(rrfK+c.bmRank)
		}
		if c.fuzzyRank > 0 {
			c.fused += fuzzyWeight / float64(rrfK+c.fuzzyRank)
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		if a.fused != b.fused {
			if a.fused > b.fused {
				return -1
			}
			return 1
		}
		return strings.Compare(a.doc.ID, b.doc.ID)
	})
}

// assignRanks gives each candidate with a positive score its competition
// rank (1, 2, 2, 4, ...) by that score; others get 0.
func assignRanks(cands []candidate, score func(*candidate) float64, set func(*candidate, int)) {
	slices.SortFunc(cands, func(a, b candidate) int {
		sa, sb := score(&a), score(&b)
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	rank := 0
	for i := range cands {
		s := score(&cands[i])
		if s <= 0 {
			set(&cands[i], 0)
			continue
		}
		if i == 0 || s != score(&cands[i-1]) {
			rank = i + 1
		}
		set(&cands[i], rank)
	}
}
