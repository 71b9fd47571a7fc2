package search

import (
	"math/bits"
	"sort"
	"strings"
)

// weightedTerm is one index term a query word may stand for, with how much a
// match on it is worth next to the word itself.
type weightedTerm struct {
	term string
	w    float64
}

// termGroup is every term one query word may stand for: the word, its
// synonyms, corrections of a typo. A tool scores the best of them, so a word
// with many synonyms does not count many times.
type termGroup []weightedTerm

// Weights of the alternatives, relative to the word as typed.
const (
	synonymWeight   = 0.75
	thesaurusWeight = 0.35
	computingWeight = 0.3
	expansionWeight = 0.8
	typoWeight      = 0.7
	typo2Weight     = 0.5
	prefixWeight    = 0.5
	genericWeight   = 0.6
	maxPrefixTerms  = 8
)

// with returns g with term t at weight w, or at the better of w and its
// weight already there.
func (g termGroup) with(t string, w float64) termGroup {
	for i := range g {
		if g[i].term == t {
			g[i].w = max(g[i].w, w)
			return g
		}
	}
	return append(g, weightedTerm{t, w})
}

// parsedQuery is a request as the rankers read it.
type parsedQuery struct {
	groups   []termGroup // for BM25F
	patterns []string    // for fuzzy name matching
	// wordGroup is, per query word, the index of its term group, or -1
	// for a word the index knows nothing of.
	wordGroup []int
	// wordWeight is, per query word, the weight of the word itself, to
	// which its alternatives' weights compare.
	wordWeight []float64
}

func (p *parsedQuery) empty() bool { return len(p.groups) == 0 && len(p.patterns) == 0 }

// parseQuery turns free text into term groups for BM25F and patterns for
// fuzzy name matching. Both are empty when the text has no words.
func (sn *snapshot) parseQuery(text string) *parsedQuery {
	toks := Tokenize(text)
	words := toks[:0:0]
	for _, t := range toks {
		if !stopwords[t] {
			words = append(words, t)
		}
	}
	if len(words) == 0 {
		words = toks // a query of only stopwords still means something
	}
	if len(words) == 0 {
		return &parsedQuery{}
	}

	var groups []termGroup
	seen := map[string]int{} // stem -> its group, plus one
	// addWord adds the term group of stemmed word s and returns its index,
	// or -1 when the index knows neither s nor anything s may stand for.
	addWord := func(s, typed string, w float64) int {
		if gi := seen[s]; gi != 0 {
			return gi - 1
		}
		// A word that is already an alternative of an earlier word ("make"
		// after "new") names the same idea; counting it again would favour
		// whatever tool matches that idea over the rest of the query.
		for gi, g := range groups {
			for i := range g {
				if g[i].term == s {
					g[i].w = max(g[i].w, w)
					seen[s] = gi + 1
					return gi
				}
			}
		}
		g := sn.expand(s, typed, w)
		if len(g) == 0 {
			seen[s] = 0
			return -1
		}
		groups = append(groups, g)
		seen[s] = len(groups)
		return len(groups) - 1
	}
	var patterns []string
	wordGroup := make([]int, len(words))
	wordWeight := make([]float64, len(words))
	prev := -1 // group of the previous word
	for wi, t := range words {
		s := stem(t)
		w := 1.0
		if genericVerbs[t] || genericVerbs[s] {
			w = genericWeight
		}
		gi := addWord(s, t, w)
		known := gi >= 0
		for _, e := range expansionsOf[s] {
			known = addWord(e, e, expansionWeight*w) >= 0 || known
		}
		// Only a word the tools never use is split: one they use
		// ("workspace") means itself, not its parts.
		if left, right, ok := sn.splitCompound(t); ok && sn.df[s] == 0 {
			if gi < 0 {
				groups = append(groups, termGroup{})
				gi = len(groups) - 1
				seen[s] = gi + 1
			}
			groups[gi] = groups[gi].with(left, compoundWeight*w).with(right, compoundWeight*w)
			known = true
		}
		// Two words that the tools write as one count for both words: a
		// tool that says "configmaps" answers "config maps" in full.
		if wi > 0 {
			if j, ok := sn.joinedTerm(words[wi-1], t); ok {
				if gi < 0 { // "maps" alone may be unknown where "configmaps" is not
					groups = append(groups, termGroup{})
					gi = len(groups) - 1
					seen[s] = gi + 1
				}
				for _, g := range []int{prev, gi} {
					if g >= 0 {
						groups[g] = groups[g].with(j, 1)
					}
				}
				known = true
			}
		}
		prev = gi
		wordGroup[wi], wordWeight[wi] = gi, w
		// A word that is neither a term, a synonym, a typo nor a prefix of
		// one may still abbreviate a name ("lstpods", "rdgraph").
		if !known && len([]rune(t)) >= 3 {
			patterns = append(patterns, t)
		}
	}
	// The words run together ("list pods" as "listpods") let the fuzzy
	// matcher find a name that holds them in order, which favours names over
	// descriptions for short queries. A single known word needs no fuzzy
	// pass: BM25F already matches it in names, and it would match most of a
	// large catalog.
	if len(words) >= 2 && len(words) <= 3 {
		if joined := strings.Join(words, ""); len([]rune(joined)) >= 3 && !contains(patterns, joined) {
			patterns = append(patterns, joined)
		}
	}
	return &parsedQuery{groups: groups, patterns: patterns, wordGroup: wordGroup, wordWeight: wordWeight}
}

// expand builds the term group of one stemmed query word s, typed as typed.
func (sn *snapshot) expand(s, typed string, w float64) termGroup {
	g := termGroup{}
	// An alternative in most tools tells little and costs a long scan.
	common := int32(max(50, sn.n/20))
	add := func(t string, tw float64) {
		if df := sn.df[t]; df == 0 || t != s && df > common {
			return
		}
		for i := range g {
			if g[i].term == t {
				g[i].w = max(g[i].w, tw)
				return
			}
		}
		g = append(g, weightedTerm{t, tw})
	}
	add(s, w)
	for _, syn := range synonymsOf[s] {
		add(syn, synonymWeight*w)
	}
	for _, rel := range thesaurus()[s] {
		add(rel, thesaurusWeight*w)
	}
	for _, rel := range computing()[s] {
		add(rel, computingWeight*w)
	}
	// A method's own word is in most tools of a large catalog, past the cap
	// above; a request has few verbs, so few long posting lists.
	for _, h := range verbHeadsOf[s] {
		if df := sn.df[h]; df > 0 {
			g = g.with(h, verbClassWeight*w)
		}
	}
	if sn.df[s] > 0 {
		return g
	}
	// Unknown word: a typo of a known term, or the start of one. The
	// stemmer may have cut a typo short ("raed" to "rae"), so the word as
	// typed is corrected too.
	cands := sn.typoCandidates(s)
	if typed != s {
		cands = append(cands, sn.typoCandidates(typed)...)
	}
	for _, c := range cands {
		tw := typoWeight * w
		if c.dist > 1 {
			tw = typo2Weight * w
		}
		add(c.term, tw)
		for _, syn := range synonymsOf[c.term] {
			add(syn, synonymWeight*tw)
		}
	}
	// The likeliest correction is the commonest known term at the least
	// distance (Norvig, "How to Write a Spelling Corrector", 2007: among
	// candidates of the same edit distance, the most frequent word). It is
	// the word meant rather than a relative of it, so it is added past the
	// cap on common alternatives: a typo of "list" or "file" is still "list"
	// or "file". One term, so one long posting list at most.
	if best, ok := likeliest(cands, sn.df); ok {
		tw := typoWeight * w
		if best.dist > 1 {
			tw = typo2Weight * w
		}
		g = g.with(best.term, tw)
	}
	if len(s) >= 3 {
		i := sort.SearchStrings(sn.vocab, s)
		for n := 0; i < len(sn.vocab) && n < maxPrefixTerms && strings.HasPrefix(sn.vocab[i], s); i++ {
			add(sn.vocab[i], prefixWeight*w)
			n++
		}
	}
	return g
}

// likeliest returns the candidate at the least distance with the most tools.
func likeliest(cands []typoCandidate, df map[string]int32) (typoCandidate, bool) {
	var best typoCandidate
	for _, c := range cands {
		if best.term == "" || c.dist < best.dist ||
			c.dist == best.dist && (df[c.term] > df[best.term] || df[c.term] == df[best.term] && c.term < best.term) {
			best = c
		}
	}
	return best, best.term != ""
}

type typoCandidate struct {
	term string
	dist int
}

// typoCandidates returns the known terms within edit distance of s: one edit
// for words of 4 to 7 letters, two from 8 on. Shorter words have too many
// neighbours to guess from.
func (sn *snapshot) typoCandidates(s string) []typoCandidate {
	rs := []rune(s)
	maxD := 0
	switch {
	case len(rs) >= 8:
		maxD = 2
	case len(rs) >= 4:
		maxD = 1
	default:
		return nil
	}
	mask := runeMask(s)
	var out []typoCandidate
	var buf osaBuf
	for _, v := range sn.vocab {
		// An edit changes the byte length by at most 4 and the character
		// set by at most 2; both checks are far cheaper than the distance.
		if d := len(v) - len(s); d > 4*maxD || -d > 4*maxD {
			continue
		}
		if bits.OnesCount64(runeMask(v)^mask) > 2*maxD {
			continue
		}
		if d := buf.distance(rs, v, maxD); d <= maxD {
			out = append(out, typoCandidate{v, d})
		}
	}
	return out
}
