package search

import (
	"slices"
	"strings"
	"unicode"
)

// field is one part of a tool that BM25F scores on its own.
type field uint8

const (
	fieldName field = iota
	fieldPlugin
	fieldLabels
	fieldDesc
	fieldParamName
	fieldParamDesc
	numFields
)

// fieldWeight says how much a term in a field is worth: the name is what
// the tool is, the description what it says about itself, parameter
// descriptions only hint.
var fieldWeight = [numFields]float64{
	fieldName:      5,
	fieldPlugin:    1.5,
	fieldLabels:    1.5,
	fieldDesc:      1,
	fieldParamName: 1,
	fieldParamDesc: 0.4,
}

// fieldB is the length normalisation per field: long descriptions are
// common and should not win by repetition; names are short and alike.
var fieldB = [numFields]float64{
	fieldName:      0.4,
	fieldPlugin:    0.2,
	fieldLabels:    0.3,
	fieldDesc:      0.75,
	fieldParamName: 0.5,
	fieldParamDesc: 0.75,
}

// posting records that a term occurs in one document of a segment, and how
// often per field (saturated at 255; BM25 saturates long before).
type posting struct {
	doc uint32
	tf  [numFields]uint8
}

// nameRef is a fuzzy-matching target: a tool's name and the set of
// characters in it, which rules out most names before the real matcher runs.
type nameRef struct {
	name string
	mask uint64
	doc  uint32
}

// segment holds one plugin's tools and their term postings. It is never
// changed after build, so searches read it without locks.
type segment struct {
	plugin   string
	docs     []*Doc // sorted by ID
	lowerID  []string
	byID     map[string]uint32
	fieldLen [][numFields]uint16
	sumLen   [numFields]int
	postings map[string][]posting
	names    []nameRef
}

func newSegment(plugin string, in []Doc) *segment {
	docs := make([]Doc, len(in))
	copy(docs, in)
	for i := range docs {
		docs[i].Plugin = plugin
	}
	// Sorted by ID for ordered listing; a repeated ID keeps its last version.
	slices.SortStableFunc(docs, func(a, b Doc) int { return strings.Compare(a.ID, b.ID) })
	kept := docs[:0]
	for i := range docs {
		if i+1 < len(docs) && docs[i+1].ID == docs[i].ID {
			continue
		}
		kept = append(kept, docs[i])
	}
	docs = kept

	s := &segment{
		plugin:   plugin,
		docs:     make([]*Doc, len(docs)),
		lowerID:  make([]string, len(docs)),
		byID:     make(map[string]uint32, len(docs)),
		fieldLen: make([][numFields]uint16, len(docs)),
		postings: make(map[string][]posting),
		names:    make([]nameRef, len(docs)),
	}
	pluginTerms := terms(plugin)
	// Per doc: term -> slot in counts, reused from doc to doc.
	slot := make(map[string]int)
	var counts [][numFields]uint8
	var order []string
	for i := range docs {
		d := &docs[i]
		s.docs[i] = d
		s.lowerID[i] = strings.ToLower(d.ID)
		s.byID[d.ID] = uint32(i)
		name := d.Name
		if name == "" {
			name = d.ID
		}
		s.names[i] = nameRef{name: name, mask: runeMask(name), doc: uint32(i)}

		clear(slot)
		counts, order = counts[:0], order[:0]
		add := func(f field, ts []string) {
			for _, t := range ts {
				k, ok := slot[t]
				if !ok {
					k = len(counts)
					slot[t] = k
					counts = append(counts, [numFields]uint8{})
					order = append(order, t)
				}
				if counts[k][f] < 255 {
					counts[k][f]++
				}
			}
			s.fieldLen[i][f] = sat16(int(s.fieldLen[i][f]) + len(ts))
		}
		add(fieldName, terms(name))
		add(fieldPlugin, pluginTerms)
		for _, k := range sortedKeys(d.Labels) {
			add(fieldLabels, terms(k))
			add(fieldLabels, terms(d.Labels[k]))
		}
		add(fieldDesc, terms(d.Description))
		for _, p := range d.Params {
			add(fieldParamName, terms(p.Name))
			add(fieldParamDesc, terms(p.Description))
		}
		for f := range s.sumLen {
			s.sumLen[f] += int(s.fieldLen[i][f])
		}
		for k, t := range order {
			s.postings[t] = append(s.postings[t], posting{doc: uint32(i), tf: counts[k]})
		}
	}
	// Postings were appended in doc order, so each list is already sorted;
	// trim the spare capacity append left behind.
	for t, p := range s.postings {
		s.postings[t] = slices.Clip(p)
	}
	return s
}

func sat16(n int) uint16 {
	if n > 65535 {
		return 65535
	}
	return uint16(n)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// runeMask is a 64-bit set of the (case-folded) characters of s: letters and
// digits get their own bit, everything else shares hashed bits. A pattern
// can only be a subsequence of s if its mask is a subset of s's.
func runeMask(s string) uint64 {
	var m uint64
	for _, r := range s {
		m |= runeBit(r)
	}
	return m
}

func runeBit(r rune) uint64 {
	r = unicode.ToLower(r)
	switch {
	case r >= 'a' && r <= 'z':
		return 1 << (r - 'a')
	case r >= '0' && r <= '9':
		return 1 << (26 + r - '0')
	}
	return 1 << (36 + uint(r)%28)
}
