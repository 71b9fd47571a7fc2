package search

import (
	_ "embed"
	"sync"
)

// computingData is generated from the Free On-line Dictionary of Computing
// by scripts/gen-computing-thesaurus, in the thesaurus file's format: the
// words FOLDOC's editors give as names of one thing ("folder" and
// "directory", "web" and "www"), the computing senses WordNet lacks.
//
//go:embed computing.txt.gz
var computingData []byte

// computing relates a stemmed word to the stemmed words that name the same
// thing in computing. Parsed on first use, like the thesaurus.
var computing = sync.OnceValue(func() *relations {
	m, err := parseThesaurus(computingData)
	if err != nil {
		panic(err) // generated and embedded: a build defect, caught by the tests
	}
	return m
})
