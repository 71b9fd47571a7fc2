package search

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// baseline is textbook BM25 over one field (name and description run
// together), the yardstick the ranker has to beat. It has its own plain
// tokenizer so that work on the ranker's text handling never moves it.
type baseline struct {
	ids    []string
	tf     []map[string]int
	length []int
	df     map[string]int
	avg    float64
}

// plainWords lowercases s and splits it on anything that is not a letter or
// digit: no stemming, no identifier splitting beyond punctuation.
func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func newBaseline(docs []Doc) *baseline {
	b := &baseline{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		toks := plainWords(d.Name + " " + d.Description)
		tf := map[string]int{}
		for _, t := range toks {
			if tf[t] == 0 {
				b.df[t]++
			}
			tf[t]++
		}
		b.ids = append(b.ids, d.ID)
		b.tf = append(b.tf, tf)
		b.length = append(b.length, len(toks))
		total += len(toks)
	}
	if len(docs) > 0 {
		b.avg = float64(total) / float64(len(docs))
	}
	return b
}

func (b *baseline) search(text string, k int) []string {
	const k1, bb = 1.2, 0.75
	n := float64(len(b.ids))
	type scored struct {
		id string
		s  float64
	}
	var hits []scored
	qs := plainWords(text)
	for i, tf := range b.tf {
		s := 0.0
		for _, t := range qs {
			if f := float64(tf[t]); f > 0 {
				df := float64(b.df[t])
				idf := math.Log(1 + (n-df+0.5)/(df+0.5))
				s += idf * f * (k1 + 1) / (f + k1*(1-bb+bb*float64(b.length[i])/b.avg))
			}
		}
		if s > 0 {
			hits = append(hits, scored{b.ids[i], s})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].s != hits[j].s {
			return hits[i].s > hits[j].s
		}
		return hits[i].id < hits[j].id
	})
	out := make([]string, 0, k)
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, h.id)
	}
	return out
}
