package search

import (
	"container/heap"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query selects and ranks tools. All set fields must match.
type Query struct {
	Text              string            // ranked free text; empty = no ranking, ordered by ID
	Pattern           string            // glob on ID; path.Match syntax (IDs have no '/', so '*' spans anything)
	DescriptionFilter string            // substring of description
	Labels            map[string]string // all must match exactly
	Plugin            string
	CaseSensitive     bool // for Pattern and DescriptionFilter
	Limit, Offset     int  // Limit <= 0: no limit
}

// Hit is one matching tool. Score is in (0,1], 1 for the best hit.
type Hit struct {
	Doc   *Doc
	Score float64
}

// Result is one page of hits, best first; Total counts all matches.
type Result struct {
	Hits  []Hit
	Total int
	// Coverage is the share of the ranked text's words that the best
	// match answers (through the word, its stem, a synonym, a correction
	// or its name's abbreviation); 1 without ranked text. A low value
	// means even the best tool is a guess.
	Coverage float64
}

// PatternError reports a malformed glob pattern.
type PatternError struct {
	Pattern string
	Err     error // path.ErrBadPattern
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("bad tool name pattern %q: %v", e.Pattern, e.Err)
}

func (e *PatternError) Unwrap() error { return e.Err }

// Search returns the tools matching q, ranked by q.Text when it is set.
func (ix *Index) Search(q Query) (Result, error) {
	return ix.search(q, &rankModel{weights: &rerankWeights})
}

// search is Search with the given reordering of the ranking's head.
func (ix *Index) search(q Query, m *rankModel) (Result, error) {
	f, err := newFilter(q)
	if err != nil {
		return Result{}, err
	}
	sn := ix.snap.Load()
	text := rewriteQuery(q.Text)
	// A plugin the request names narrows the search to it, unless nothing
	// there matches the rest of the request.
	if f.plugin == "" {
		if p, rest := sn.mentionedPlugin(text); p != "" {
			narrowed := *f
			narrowed.plugin = p
			if pq := sn.parseQuery(rest); !pq.empty() {
				if res := sn.rank(pq, &narrowed, q.Offset, q.Limit, m); res.Total > 0 {
					return res, nil
				}
			}
		}
	}
	if pq := sn.parseQuery(text); !pq.empty() {
		return sn.rank(pq, f, q.Offset, q.Limit, m), nil
	}
	res := sn.list(f, q.Offset, q.Limit)
	res.Coverage = 1
	return res, nil
}

// filter holds the non-ranking conditions of a query, prepared once.
type filter struct {
	pattern, desc string
	labels        map[string]string
	plugin        string
	caseSensitive bool
	perDoc        bool // whether docOK has anything to check
}

func newFilter(q Query) (*filter, error) {
	f := &filter{
		pattern:       q.Pattern,
		desc:          q.DescriptionFilter,
		labels:        q.Labels,
		plugin:        q.Plugin,
		caseSensitive: q.CaseSensitive,
	}
	if !f.caseSensitive {
		f.pattern = strings.ToLower(f.pattern)
	}
	// path.Match reports a malformed pattern only when it gets that far, so
	// check it whole against a name that makes it read every part.
	if _, err := path.Match(f.pattern, ""); err != nil {
		return nil, &PatternError{Pattern: q.Pattern, Err: err}
	}
	f.perDoc = f.pattern != "" && f.pattern != "*" || f.desc != "" || len(f.labels) > 0
	return f, nil
}

func (f *filter) segOK(s *segment) bool { return f.plugin == "" || s.plugin == f.plugin }

func (f *filter) docOK(s *segment, i int) bool {
	if !f.perDoc {
		return true
	}
	d := s.docs[i]
	if f.pattern != "" {
		id := d.ID
		if !f.caseSensitive {
			id = s.lowerID[i]
		}
		if ok, _ := path.Match(f.pattern, id); !ok {
			return false
		}
	}
	if f.desc != "" {
		if f.caseSensitive && !strings.Contains(d.Description, f.desc) ||
			!f.caseSensitive && !containsFold(d.Description, f.desc) {
			return false
		}
	}
	for k, v := range f.labels {
		if got, ok := d.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// containsFold reports whether sub occurs in s under Unicode simple case
// folding, without lowering (and copying) every description searched.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	for i := range s {
		if hasPrefixFold(s[i:], sub) {
			return true
		}
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	for _, pr := range prefix {
		if s == "" {
			return false
		}
		sr, size := utf8.DecodeRuneInString(s)
		if sr != pr && !equalFoldRune(sr, pr) {
			return false
		}
		s = s[size:]
	}
	return true
}

// equalFoldRune reports whether a and b are the same letter in different
// case, walking the Unicode fold orbit as strings.EqualFold does.
func equalFoldRune(a, b rune) bool {
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

// list returns the matching tools in ID order, for queries without text.
// Segments are each sorted by ID, so a k-way merge yields the page without
// sorting the whole catalog.
func (sn *snapshot) list(f *filter, offset, limit int) Result {
	var res Result
	var h cursorHeap
	for _, s := range sn.segs {
		if !f.segOK(s) {
			continue
		}
		if !f.perDoc {
			res.Total += len(s.docs)
		} else {
			for i := range s.docs {
				if f.docOK(s, i) {
					res.Total++
				}
			}
		}
		if len(s.docs) > 0 {
			h = append(h, cursor{s, 0})
		}
	}
	heap.Init(&h)
	skipped := 0
	for h.Len() > 0 && (limit <= 0 || len(res.Hits) < limit) {
		c := &h[0]
		if i := c.i; f.docOK(c.seg, i) {
			if skipped < offset {
				skipped++
			} else {
				res.Hits = append(res.Hits, Hit{Doc: c.seg.docs[i], Score: 1})
			}
		}
		if c.i++; c.i == len(c.seg.docs) {
			heap.Pop(&h)
		} else {
			heap.Fix(&h, 0)
		}
	}
	return res
}

// cursor walks one segment's docs in ID order.
type cursor struct {
	seg *segment
	i   int
}

type cursorHeap []cursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(a, b int) bool {
	return h[a].seg.docs[h[a].i].ID < h[b].seg.docs[h[b].i].ID
}
func (h cursorHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
