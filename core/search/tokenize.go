package search

import (
	"strings"
	"unicode"
)

// runeClass tells how a rune takes part in a word.
type runeClass uint8

const (
	classSep runeClass = iota
	classLower
	classUpper
	classOther // letters without case (CJK, marks, title case)
	classDigit
)

func classify(r rune) runeClass {
	switch {
	case unicode.IsLower(r):
		return classLower
	case unicode.IsUpper(r):
		return classUpper
	case unicode.IsLetter(r), unicode.IsMark(r):
		return classOther
	case unicode.IsNumber(r):
		return classDigit
	}
	return classSep
}

// Tokenize splits s into lowercase words. Anything that is not a letter,
// mark or number separates words; inside a run of those, camelCase
// ("listPods", "HTTPServer") and letter/digit changes ("sha256") split too.
// A single letter next to digits stays attached ("k8s", "s3", "v1", "i18n"),
// because such short mixes name one thing and are useless in pieces.
// Lowercasing is per rune with Unicode rules, so no rune is ever cut.
func Tokenize(s string) []string {
	var tokens []string
	run := make([]rune, 0, 32)
	flush := func() {
		if len(run) > 0 {
			tokens = appendPieces(tokens, run)
			run = run[:0]
		}
	}
	for _, r := range s {
		if classify(r) == classSep {
			flush()
			continue
		}
		run = append(run, r)
	}
	flush()
	return tokens
}

// appendPieces splits one run of word runes at case and digit boundaries and
// appends the lowercased pieces.
func appendPieces(tokens []string, run []rune) []string {
	var pieces []piece
	start := 0
	for i := 1; i < len(run); i++ {
		prev, cur := classify(run[i-1]), classify(run[i])
		cut := false
		switch {
		case (prev == classDigit) != (cur == classDigit):
			cut = true
		case prev == classLower && cur == classUpper:
			cut = true
		case prev == classUpper && cur == classUpper && i+1 < len(run) && classify(run[i+1]) == classLower:
			cut = true // "HTTPServer": the last capital starts the next word
		}
		if cut {
			pieces = append(pieces, piece{start, i, prev == classDigit})
			start = i
		}
	}
	pieces = append(pieces, piece{start, len(run), classify(run[len(run)-1]) == classDigit})

	var b strings.Builder
	for i := 0; i < len(pieces); i++ {
		b.Reset()
		writeLower(&b, run[pieces[i].start:pieces[i].end])
		// Join digits with a one-letter neighbour, and keep joining while the
		// chain continues: "k8s", "i18n", "x1y2".
		for i+1 < len(pieces) && glued(pieces[i], pieces[i+1]) {
			i++
			writeLower(&b, run[pieces[i].start:pieces[i].end])
		}
		tokens = append(tokens, b.String())
	}
	return tokens
}

// piece is a part of a word run: run[start:end], all digits or all letters.
type piece struct {
	start, end int
	digit      bool
}

// glued reports whether two neighbouring pieces stay one token.
func glued(a, b piece) bool {
	if a.digit == b.digit {
		return false
	}
	letters := a
	if a.digit {
		letters = b
	}
	return letters.end-letters.start == 1
}

func writeLower(b *strings.Builder, rs []rune) {
	for _, r := range rs {
		b.WriteRune(unicode.ToLower(r))
	}
}

// stopwords carry no meaning for finding a tool; dropping them keeps long,
// chatty queries from rewarding long descriptions.
var stopwords = setOf("a", "an", "the", "of", "to", "for", "in", "on", "at", "by", "with",
	"from", "and", "or", "is", "are", "be", "it", "its", "this", "that", "as", "me", "my",
	"i", "we", "you", "your", "our", "some", "can", "into", "which", "what", "how", "do",
	"does", "there", "please", "want", "need", "would", "like", "via", "so", "if", "then",
	"than", "all", "any", "one")

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// terms turns text into index terms: tokens without stopwords, stemmed.
func terms(s string) []string {
	toks := Tokenize(s)
	out := toks[:0]
	for _, t := range toks {
		if stopwords[t] {
			continue
		}
		out = append(out, stem(t))
	}
	return out
}

// stem strips the English endings that make the same word look different in
// a tool name and in a query (plural, -ing, -ed, final -e), so "listing",
// "lists" and "list" meet, as do "deleted", "delete" and "deleting". It is
// deliberately light: it only has to map the two sides to the same key, not
// produce a dictionary word.
func stem(w string) string {
	if !isASCIILower(w) || len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ing") && len(w) > 5 && hasVowel(w[:len(w)-3]):
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4 && hasVowel(w[:len(w)-2]):
		w = undouble(w[:len(w)-2])
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

func isASCIILower(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func hasVowel(w string) bool {
	return strings.ContainsAny(w, "aeiouy")
}

// undouble turns "runn" (from "running") into "run"; "ll", "ss" and "zz"
// stay, as in "install", "process".
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}
