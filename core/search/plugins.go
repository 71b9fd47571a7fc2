package search

import (
	"math"
	"slices"
	"strings"
)

// PluginSummary says what one plugin's tools are about, in a few words, so
// an assistant knows what it may search for.
type PluginSummary struct {
	Plugin string
	Tools  int
	Words  []string // the plugin's most characteristic words, best first
}

// PluginSummaries describes every plugin by the words of its tool names
// that are frequent in the plugin and rare elsewhere (tf-idf over names),
// at most n words each. Generic verbs ("get", "list") say nothing of what
// a plugin offers and are left out.
func (ix *Index) PluginSummaries(n int) []PluginSummary {
	sn := ix.snap.Load()
	out := make([]PluginSummary, 0, len(sn.segs))
	for _, s := range sn.segs {
		count := map[string]int{} // by stem, so "resource" and "resources" are one
		shown := map[string]string{}
		for _, d := range s.docs {
			name := d.Name
			if name == "" {
				name = d.ID
			}
			seen := map[string]bool{}
			for _, t := range Tokenize(name) {
				st := stem(t)
				if len(t) < 3 || stopwords[t] || genericVerbs[t] || seen[st] || t == s.plugin {
					continue
				}
				seen[st] = true
				count[st]++
				if _, ok := shown[st]; !ok {
					shown[st] = t
				}
			}
		}
		type scored struct {
			word string
			v    float64
		}
		var ws []scored
		for w, c := range count {
			df := float64(sn.df[w])
			ws = append(ws, scored{shown[w], float64(c) * math.Log(1+float64(sn.n)/(1+df))})
		}
		slices.SortFunc(ws, func(a, b scored) int { return cmpDesc(a.v, b.v, strings.Compare(a.word, b.word)) })
		sum := PluginSummary{Plugin: s.plugin, Tools: len(s.docs)}
		for _, w := range ws[:min(n, len(ws))] {
			sum.Words = append(sum.Words, w.word)
		}
		out = append(out, sum)
	}
	return out
}
