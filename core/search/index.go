package search

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Doc is one tool as the index sees it.
type Doc struct {
	ID          string // exposed tool name, unique across the catalog
	Plugin      string
	Name        string // the tool's original name within its plugin
	Description string
	Params      []Param           // from the input schema
	Labels      map[string]string // plugin labels plus annotation-derived labels
}

// Param is one input-schema property of a tool.
type Param struct {
	Name, Description string
	Enum              []string // the values it allows, when it lists them
}

// Index is the searchable catalog. Searches run on an immutable snapshot and
// never wait for writers; a write swaps in a new snapshot that shares every
// untouched plugin's segment with the old one.
type Index struct {
	mu   sync.Mutex // serialises writers only
	snap atomic.Pointer[snapshot]
}

// snapshot is the catalog at one moment: the plugins' segments plus the
// collection statistics BM25 needs, kept summed so a query reads them
// directly.
type snapshot struct {
	segs   []*segment // sorted by plugin
	base   []int      // global number of segs[i]'s first doc
	n      int
	sumLen [numFields]int
	df     map[string]int32 // documents containing a term, over all segments
	vocab  []string         // distinct terms, sorted, for typo and prefix lookups
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	ix := &Index{}
	ix.snap.Store(&snapshot{df: map[string]int32{}})
	return ix
}

// Replace sets the tools of one plugin, leaving other plugins as they are.
// An empty docs removes the plugin. Each doc's Plugin is set to plugin. The
// docs are copied, but their Params and Labels are kept as they are: the
// caller must not change them afterwards.
func (ix *Index) Replace(plugin string, docs []Doc) {
	var seg *segment
	if len(docs) > 0 {
		seg = newSegment(plugin, docs) // the expensive part, outside the lock
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.snap.Store(ix.snap.Load().with(plugin, seg))
}

// Remove drops every tool of a plugin.
func (ix *Index) Remove(plugin string) { ix.Replace(plugin, nil) }

// Get returns the tool with this exact ID.
func (ix *Index) Get(id string) (*Doc, bool) {
	for _, s := range ix.snap.Load().segs {
		if i, ok := s.byID[id]; ok {
			return s.docs[i], true
		}
	}
	return nil, false
}

// Len is the number of tools in the index.
func (ix *Index) Len() int { return ix.snap.Load().n }

// with returns a copy of sn in which plugin's segment is seg (nil: none).
// Only the statistics of the two segments involved are touched.
func (sn *snapshot) with(plugin string, seg *segment) *snapshot {
	i, found := slices.BinarySearchFunc(sn.segs, plugin, func(s *segment, p string) int {
		return strings.Compare(s.plugin, p)
	})
	var old *segment
	segs := slices.Clone(sn.segs)
	switch {
	case found && seg != nil:
		old, segs[i] = segs[i], seg
	case found:
		old = segs[i]
		segs = slices.Delete(segs, i, i+1)
	case seg != nil:
		segs = slices.Insert(segs, i, seg)
	default:
		return sn
	}

	next := &snapshot{segs: segs, base: make([]int, len(segs)), sumLen: sn.sumLen, n: sn.n}
	for j := 1; j < len(segs); j++ {
		next.base[j] = next.base[j-1] + len(segs[j-1].docs)
	}
	next.df = maps.Clone(sn.df)
	gone := map[string]bool{}
	var added []string
	if old != nil {
		next.n -= len(old.docs)
		for f := range next.sumLen {
			next.sumLen[f] -= old.sumLen[f]
		}
		for t, p := range old.postings {
			if next.df[t] -= int32(len(p)); next.df[t] <= 0 {
				delete(next.df, t)
				gone[t] = true
			}
		}
	}
	if seg != nil {
		next.n += len(seg.docs)
		for f := range next.sumLen {
			next.sumLen[f] += seg.sumLen[f]
		}
		for t, p := range seg.postings {
			if next.df[t] == 0 {
				if gone[t] {
					delete(gone, t)
				} else {
					added = append(added, t)
				}
			}
			next.df[t] += int32(len(p))
		}
	}
	next.vocab = mergeVocab(sn.vocab, gone, added)
	return next
}

// mergeVocab returns vocab without the gone terms and with the added ones,
// sorted, in one pass over vocab (the new terms are few next to it).
func mergeVocab(vocab []string, gone map[string]bool, added []string) []string {
	if len(gone) == 0 && len(added) == 0 {
		return vocab
	}
	slices.Sort(added)
	out := make([]string, 0, len(vocab)-len(gone)+len(added))
	a := 0
	for _, t := range vocab {
		for a < len(added) && added[a] < t {
			out = append(out, added[a])
			a++
		}
		if !gone[t] {
			out = append(out, t)
		}
	}
	return append(out, added[a:]...)
}
