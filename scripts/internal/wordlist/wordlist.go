// Package wordlist writes the related-word files core/search embeds, for the
// generators that make them from lexical resources (WordNet, FOLDOC): one
// format and one rule for which words can ever meet a request's.
package wordlist

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Usable reports whether a word can meet a query word: one plain lowercase
// word of at least three letters (collocations like "take_away" or
// "World-Wide Web" never appear as one token).
func Usable(w string) bool {
	if len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// Write stores related at path as gzip-compressed text, one word a line in
// byte order: the word, a tab, its related words separated by spaces. Words
// with nothing related are left out; an empty result is an error, since it
// means the resource read was not what the generator expected.
func Write(path string, related map[string][]string) error {
	words := make([]string, 0, len(related))
	for w, rel := range related {
		if len(rel) > 0 {
			words = append(words, w)
		}
	}
	if len(words) == 0 {
		return errors.New("no related words found: is this the resource the generator reads?")
	}
	slices.Sort(words)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer f.Close()
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	for _, w := range words {
		fmt.Fprintf(bw, "%s\t%s\n", w, strings.Join(related[w], " "))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
