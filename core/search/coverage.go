package search

import (
	"slices"
	"strings"
)

// coverage is the share of the query's words that candidate c answers,
// each word counting by how close the term that matched is to the word
// itself: in full for the word or its stem, less for a correction or a
// thesaurus relative.
// A name the fuzzy matcher found answers the words the index did not know,
// from which its patterns were built.
func (sn *snapshot) coverage(pq *parsedQuery, c *candidate) float64 {
	if len(pq.wordGroup) == 0 {
		return 1
	}
	seg, doc := sn.docRef(c.doc)
	matched := 0.0
	for wi, gi := range pq.wordGroup {
		switch {
		case gi < 0:
			if c.fz > 0 {
				matched++
			}
		case seg != nil:
			matched += min(1, seg.match(doc, pq.groups[gi])/pq.wordWeight[wi])
		}
	}
	return matched / float64(len(pq.wordGroup))
}

// docRef finds the segment and number of an indexed document.
func (sn *snapshot) docRef(d *Doc) (*segment, uint32) {
	i, found := slices.BinarySearchFunc(sn.segs, d.Plugin, func(s *segment, p string) int {
		return strings.Compare(s.plugin, p)
	})
	if !found {
		return nil, 0
	}
	return sn.segs[i], sn.segs[i].byID[d.ID]
}

// match is the weight of the best term of g that doc contains, 0 for none.
func (s *segment) match(doc uint32, g termGroup) float64 {
	best := 0.0
	for _, wt := range g {
		if wt.w <= best {
			continue
		}
		ps := s.postings[wt.term]
		if _, ok := slices.BinarySearchFunc(ps, doc, func(p posting, d uint32) int { return int(p.doc) - int(d) }); ok {
			best = wt.w
		}
	}
	return best
}
