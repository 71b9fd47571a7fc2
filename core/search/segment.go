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
	fieldParamEnum
	fieldSummary
	numFields
)

// fieldWeight says how much a term in a field is worth: the name is what
// the tool is, the description what it says about itself, parameter
// descriptions only hint.
var fieldWeight = [numFields]float64{
	fieldName:      5,
	fieldPlugin:    1.5,
	fieldLabels:    1.5,
	fieldDesc:      1.5,
	fieldParamName: 0.7,
	fieldParamDesc: 0.4,
	fieldParamEnum: 0.8,
	fieldSummary:   1,
}

// fieldB is the length normalisation per field: long descriptions are
// common and should not win by repetition; names are short and alike.
var fieldB = [numFields]float64{
	fieldName:      0.4,
	fieldPlugin:    0.2,
	fieldLabels:    0.3,
	fieldDesc:      0.5,
	fieldParamName: 0.5,
	fieldParamDesc: 0.75,
	fieldParamEnum: 0.5,
	fieldSummary:   0.5,
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
	oneWord  bool   // the plugin's name is one token, so a request can say it
	docs     []*Doc // sorted by ID
	lowerID  []string
	idMask   []uint64 // runeMask of each ID, for Closest
	byID     map[string]uint32
	fieldLen [][numFields]uint16
	sumLen   [numFields]int
	postings map[string][]posting
	names    []nameRef
	// What the reranker reads of each doc, as numbers into terms (the
	// segment's distinct terms): the terms of every name back to back,
	// doc i's at nameTerms[nameEnd[i-1]:nameEnd[i]], and the first term of
	// its description's first sentence (-1 for none).
	terms      []string
	nameTerms  []int32
	nameEnd    []uint32
	action     []int32
	pluginTerm string // the plugin's name as a term, which its tools' names often repeat
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
		plugin:     plugin,
		oneWord:    len(Tokenize(plugin)) == 1,
		docs:       make([]*Doc, len(docs)),
		lowerID:    make([]string, len(docs)),
		idMask:     make([]uint64, len(docs)),
		byID:       make(map[string]uint32, len(docs)),
		fieldLen:   make([][numFields]uint16, len(docs)),
		names:      make([]nameRef, len(docs)),
		nameEnd:    make([]uint32, len(docs)),
		pluginTerm: stem(strings.ToLower(plugin)),
		action:     make([]int32, len(docs)),
	}
	b := postingsBuilder{termID: map[string]int32{}}
	var buf []string
	stems := map[string]string{}
	for i := range docs {
		d := &docs[i]
		s.docs[i] = d
		s.lowerID[i] = strings.ToLower(d.ID)
		s.idMask[i] = runeMask(d.ID)
		s.byID[d.ID] = uint32(i)
		name := d.Name
		if name == "" {
			name = d.ID
		}
		s.names[i] = nameRef{name: name, mask: runeMask(name), doc: uint32(i)}

		b.startDoc()
		add := func(f field, texts ...string) {
			buf = buf[:0]
			for _, t := range texts {
				buf = appendTerms(buf, t, stems)
			}
			b.add(f, buf)
			s.fieldLen[i][f] = sat16(int(s.fieldLen[i][f]) + len(buf))
		}
		add(fieldName, name)
		for _, t := range buf {
			s.nameTerms = append(s.nameTerms, b.termID[t])
		}
		s.nameEnd[i] = uint32(len(s.nameTerms))
		add(fieldPlugin, plugin)
		// Label values describe the tool ("category=monitoring"); keys and
		// flag values ("readOnly=true") are for filtering and would only
		// echo words like "read" into unrelated rankings.
		for _, k := range sortedKeys(d.Labels) {
			if v := d.Labels[k]; v != "true" && v != "false" {
				add(fieldLabels, v)
			}
		}
		add(fieldDesc, d.Description)
		add(fieldSummary, firstSentence(d.Description))
		s.action[i] = -1
		if len(buf) > 0 {
			s.action[i] = b.termID[buf[0]]
		}
		for _, p := range d.Params {
			add(fieldParamName, p.Name)
			add(fieldParamDesc, p.Description)
			add(fieldParamEnum, p.Enum...)
		}
		for f := range s.sumLen {
			s.sumLen[f] += int(s.fieldLen[i][f])
		}
	}
	s.postings = b.build()
	s.nameTerms = slices.Clip(s.nameTerms)
	s.terms = slices.Clip(b.terms)
	return s
}

// postingsBuilder collects a segment's term occurrences doc by doc, then
// lays all posting lists out in one array, each list in doc order.
type postingsBuilder struct {
	termID   map[string]int32
	terms    []string
	df       []int32
	lastDoc  []int32 // per term: the last doc it occurred in, plus one
	lastOcc  []int32 // per term: its entry in occs for that doc
	occs     []occurrence
	docStart []int32 // per doc: its first entry in occs
}

type occurrence struct {
	term int32
	tf   [numFields]uint8
}

func (b *postingsBuilder) startDoc() { b.docStart = append(b.docStart, int32(len(b.occs))) }

func (b *postingsBuilder) add(f field, ts []string) {
	doc := int32(len(b.docStart)) // plus one, so the zero value means none
	for _, t := range ts {
		id, ok := b.termID[t]
		if !ok {
			id = int32(len(b.terms))
			b.termID[t] = id
			b.terms = append(b.terms, t)
			b.df = append(b.df, 0)
			b.lastDoc = append(b.lastDoc, 0)
			b.lastOcc = append(b.lastOcc, 0)
		}
		if b.lastDoc[id] != doc {
			b.lastDoc[id], b.lastOcc[id] = doc, int32(len(b.occs))
			b.df[id]++
			b.occs = append(b.occs, occurrence{term: id})
		}
		if c := &b.occs[b.lastOcc[id]].tf[f]; *c < 255 {
			*c++
		}
	}
}

func (b *postingsBuilder) build() map[string][]posting {
	all := make([]posting, len(b.occs))
	next := make([]int32, len(b.terms))
	out := make(map[string][]posting, len(b.terms))
	at := int32(0)
	for id, t := range b.terms {
		next[id] = at
		out[t] = all[at : at+b.df[id] : at+b.df[id]]
		at += b.df[id]
	}
	for doc, start := range b.docStart {
		end := int32(len(b.occs))
		if doc+1 < len(b.docStart) {
			end = b.docStart[doc+1]
		}
		for _, o := range b.occs[start:end] {
			all[next[o.term]] = posting{doc: uint32(doc), tf: o.tf}
			next[o.term]++
		}
	}
	return out
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
	switch {
	case r >= 'A' && r <= 'Z':
		r += 'a' - 'A'
	case r >= 0x80:
		r = unicode.ToLower(r)
	}
	switch {
	case r >= 'a' && r <= 'z':
		return 1 << (r - 'a')
	case r >= '0' && r <= '9':
		return 1 << (26 + r - '0')
	}
	return 1 << (36 + uint(r)%28)
}

// firstSentence is what a description says the tool does; the rest is
// usage notes and examples, which mention other things.
func firstSentence(desc string) string {
	for i := 0; i < len(desc); i++ {
		if desc[i] == '\n' || desc[i] == '.' && i+1 < len(desc) && desc[i+1] == ' ' {
			return desc[:i]
		}
	}
	return desc
}

// nameTermsOf returns the numbers of the terms of doc i's name.
func (s *segment) nameTermsOf(i uint32) []int32 {
	start := uint32(0)
	if i > 0 {
		start = s.nameEnd[i-1]
	}
	return s.nameTerms[start:s.nameEnd[i]]
}

// actionOf returns the first term of doc i's description, or "".
func (s *segment) actionOf(i uint32) string {
	if a := s.action[i]; a >= 0 {
		return s.terms[a]
	}
	return ""
}
