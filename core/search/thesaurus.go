package search

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
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

// thesaurus maps a stemmed word to the stemmed words a request may use for
// it. It is parsed on first use, not at start-up, because a gateway that
// never ranks text should not pay for it.
var thesaurus = sync.OnceValue(func() map[string][]string {
	m, err := parseThesaurus(thesaurusData)
	if err != nil {
		// The file is generated and embedded: failing to read it is a
		// build defect, caught by the package's tests.
		panic(err)
	}
	return m
})

// parseThesaurus reads the generated file. Relations are made symmetric: if
// a request's word lists a tool's word among its senses, the tool's word is
// as good a way in for a request that uses it.
func parseThesaurus(data []byte) (map[string][]string, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read thesaurus: %w", err)
	}
	m := map[string][]string{}
	link := func(a, b string) {
		if a != b && !contains(m[a], b) {
			m[a] = append(m[a], b)
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
		sw := stem(word)
		for _, r := range strings.Fields(rel) {
			sr := stem(r)
			link(sw, sr)
			link(sr, sw)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read thesaurus: line %d: %w", line, err)
	}
	return m, nil
}
