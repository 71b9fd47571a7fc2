package search

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
)

// thesaurusData is generated from WordNet 3.0 by scripts/gen-thesaurus:
// gzip-compressed lines "word<TAB>related related ...", each word's
// synonyms and derived forms in its most frequent senses, and for an
// adjective the noun it is a value of and the adjectives similar to it.
//
//go:embed thesaurus.txt.gz
var thesaurusData []byte

// thesaurus relates a stemmed word to the stemmed words a request may use
// for it. It is parsed on first use, not at start-up, because a gateway that
// never ranks text should not pay for it.
var thesaurus = sync.OnceValue(func() *relations {
	r, err := parseThesaurus(thesaurusData)
	if err != nil {
		// The file is generated and embedded: failing to read it is a
		// build defect, caught by the package's tests.
		panic(err)
	}
	return r
})

// relations is a symmetric word relation held flat: each word once, and
// each word's relations as a run of word numbers. WordNet's 20k words and
// 114k links take about a third of the heap a map of string slices did.
type relations struct {
	ids   map[string]int32 // word → its number
	words []string         // number → word
	start []int32          // word n's relations are links[start[n]:start[n+1]]
	links []int32
}

// has reports whether word has related words.
func (r *relations) has(word string) bool {
	id, ok := r.ids[word]
	return ok && r.start[id+1] > r.start[id]
}

// of yields the words related to word, in the order the file gave them.
func (r *relations) of(word string) iter.Seq[string] {
	return func(yield func(string) bool) {
		id, ok := r.ids[word]
		if !ok {
			return
		}
		for _, l := range r.links[r.start[id]:r.start[id+1]] {
			if !yield(r.words[l]) {
				return
			}
		}
	}
}

// parseThesaurus reads the generated file. Relations are made symmetric: if
// a request's word lists a tool's word among its senses, the tool's word is
// as good a way in for a request that uses it.
func parseThesaurus(data []byte) (*relations, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read thesaurus: %w", err)
	}
	r := &relations{ids: map[string]int32{}}
	var adj [][]int32
	// A word appears in many lines; it is stemmed once.
	seen := map[string]int32{}
	id := func(word string) int32 {
		if n, ok := seen[word]; ok {
			return n
		}
		w := stem(word)
		n, ok := r.ids[w]
		if !ok {
			n = int32(len(r.words))
			r.ids[w] = n
			r.words = append(r.words, w)
			adj = append(adj, nil)
		}
		seen[strings.Clone(word)] = n
		return n
	}
	link := func(a, b int32) {
		if a != b && !slices.Contains(adj[a], b) {
			adj[a] = append(adj[a], b)
		}
	}
	sc := bufio.NewScanner(zr)
	line := 0
	for sc.Scan() {
		line++
		word, rel, ok := strings.Cut(sc.Text(), "\t")
		if !ok || word == "" || rel == "" {
			return nil, fmt.Errorf("read thesaurus: line %d: want \"word<TAB>related ...\", got %q", line, sc.Text())
		}
		sw := id(word)
		for _, w := range strings.Fields(rel) {
			sr := id(w)
			link(sw, sr)
			link(sr, sw)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read thesaurus: line %d: %w", line, err)
	}
	r.start = make([]int32, len(adj)+1)
	n := 0
	for _, a := range adj {
		n += len(a)
	}
	r.links = make([]int32, 0, n)
	for i, a := range adj {
		r.links = append(r.links, a...)
		r.start[i+1] = int32(len(r.links))
	}
	r.words = slices.Clip(r.words)
	return r, nil
}
