package search

import (
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
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
		if unicode.ToLower(r) == r {
			return classOther // a capital with no small form cannot start a camelCase word
		}
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
func Tokenize(s string) []string { return appendTokens(nil, s) }

// appendTokens appends the tokens of s to tokens.
func appendTokens(tokens []string, s string) []string {
	if isASCII(s) {
		return tokenizeASCII(tokens, s)
	}
	return tokenizeRunes(tokens, s)
}

// tokenizeRunes is Tokenize for any text.
func tokenizeRunes(tokens []string, s string) []string {
	var pieces []piece
	var b strings.Builder
	run := make([]rune, 0, 32)
	flush := func() {
		if len(run) == 0 {
			return
		}
		pieces = cutPieces(pieces[:0], len(run), func(i int) runeClass { return classify(run[i]) })
		for _, p := range pieces {
			b.Reset()
			for _, r := range run[p.start:p.end] {
				b.WriteRune(unicode.ToLower(r))
			}
			tokens = append(tokens, b.String())
		}
		run = run[:0]
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

// tokenizeASCII is Tokenize for the common all-ASCII text: lowercasing
// keeps byte offsets, so every token is a slice of one lowercased copy.
func tokenizeASCII(tokens []string, s string) []string {
	lower := strings.ToLower(s)
	var pieces []piece
	for i := 0; i < len(s); {
		for i < len(s) && asciiClass(s[i]) == classSep {
			i++
		}
		j := i
		for j < len(s) && asciiClass(s[j]) != classSep {
			j++
		}
		if i < j {
			run := s[i:j]
			pieces = cutPieces(pieces[:0], len(run), func(k int) runeClass { return asciiClass(run[k]) })
			for _, p := range pieces {
				tokens = append(tokens, lower[i+p.start:i+p.end])
			}
		}
		i = j
	}
	return tokens
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func asciiClass(c byte) runeClass {
	switch {
	case c >= 'a' && c <= 'z':
		return classLower
	case c >= 'A' && c <= 'Z':
		return classUpper
	case c >= '0' && c <= '9':
		return classDigit
	}
	return classSep
}

// piece is a token's span in a run of word characters.
type piece struct {
	start, end int
	digit      bool
}

// cutPieces splits a run of n word characters, given their classes, into
// tokens: at camelCase humps ("listPods", "HTTPServer") and between letters
// and digits, except that digits and a single neighbouring letter stay
// together ("k8s", "s3", "v1", "i18n").
func cutPieces(out []piece, n int, class func(int) runeClass) []piece {
	first := len(out)
	start := 0
	for i := 1; i < n; i++ {
		prev, cur := class(i-1), class(i)
		cut := false
		switch {
		case (prev == classDigit) != (cur == classDigit):
			cut = true
		case prev == classLower && cur == classUpper:
			cut = true
		case prev == classUpper && cur == classUpper && i+1 < n && class(i+1) == classLower:
			cut = true // "HTTPServer": the last capital starts the next word
		}
		if cut {
			out = append(out, piece{start, i, prev == classDigit})
			start = i
		}
	}
	out = append(out, piece{start, n, class(n-1) == classDigit})
	// Glue in place: w is where the next merged piece goes.
	raw, w := out[first:], first
	for i := 0; i < len(raw); i++ {
		p := raw[i]
		for i+1 < len(raw) && glued(raw[i], raw[i+1]) {
			i++
			p.end = raw[i].end
		}
		out[w] = p
		w++
	}
	return out[:w]
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

// appendTerms appends the terms of s to dst. stems caches stem results
// across the calls of one index build, where the same words recur in every
// tool; nil stems without caching.
func appendTerms(dst []string, s string, stems map[string]string) []string {
	n := len(dst)
	dst = appendTokens(dst, s)
	out := dst[:n]
	for _, t := range dst[n:] {
		if stopwords[t] {
			continue
		}
		st, ok := stems[t]
		if !ok {
			st = stem(t)
			if stems != nil {
				stems[t] = st
			}
		}
		out = append(out, st)
	}
	return out
}

// stem maps the forms of an English word to one key with the Snowball
// (Porter 2) stemmer, so "listing", "lists" and "list" meet, as do
// "deleted", "deletion" and "deleting". Tokens that are not plain ASCII
// words, and short ones, are names or codes ("k8s", "s3", "ls") and stay.
func stem(w string) string {
	if len(w) <= 3 || !isASCIILower(w) {
		return w
	}
	return english.Stem(w, true)
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
