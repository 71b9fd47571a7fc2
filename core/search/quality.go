package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrQualityData marks a quality set that cannot be evaluated as written.
var ErrQualityData = errors.New("bad quality data")

// QualityScore is how well one ranker answers a query set.
type QualityScore struct {
	Top1      float64 // share of queries whose first hit is a right answer
	RecallAt5 float64 // share of right answers found in the first five hits, averaged
}

// QualityMiss is a query whose first hit was not a right answer.
type QualityMiss struct {
	Query string
	Want  []string
	Got   []string // the first five hits
}

// QualityReport compares the ranker with plain BM25 on a quality set.
type QualityReport struct {
	Tools, Queries int
	Ranker         QualityScore
	Baseline       QualityScore // single-field BM25: no field weights, stemming, synonyms or fuzzy
	Misses         []QualityMiss
}

// qualityQuery is one entry of queries.yaml.
type qualityQuery struct {
	Q    string   `yaml:"q"`
	Want []string `yaml:"want"`
}

// toolFile is one entry of a tools/<plugin>.json file: a tool as MCP
// tools/list returns it.
type toolFile struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	} `json:"inputSchema"`
}

// EvaluateQuality ranks the queries of dir/queries.yaml against the tools of
// dir/tools/*.json with both the index and a plain BM25 baseline.
func EvaluateQuality(dir string) (QualityReport, error) {
	docs, err := LoadToolDocs(filepath.Join(dir, "tools"))
	if err != nil {
		return QualityReport{}, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "queries.yaml"))
	if err != nil {
		return QualityReport{}, fmt.Errorf("read quality queries: %w", err)
	}
	var queries []qualityQuery
	if err := yaml.Unmarshal(raw, &queries); err != nil {
		return QualityReport{}, fmt.Errorf("parse quality queries: %w", err)
	}
	ix := NewIndex()
	byPlugin := map[string][]Doc{}
	for _, d := range docs {
		byPlugin[d.Plugin] = append(byPlugin[d.Plugin], d)
	}
	for p, ds := range byPlugin {
		ix.Replace(p, ds)
	}
	for _, q := range queries {
		if len(q.Want) == 0 {
			return QualityReport{}, fmt.Errorf("query %q: no expected tool: %w", q.Q, ErrQualityData)
		}
		for _, id := range q.Want {
			if _, ok := ix.Get(id); !ok {
				return QualityReport{}, fmt.Errorf("query %q expects unknown tool %q: %w", q.Q, id, ErrQualityData)
			}
		}
	}

	rep := QualityReport{Tools: len(docs), Queries: len(queries)}
	base := newBaseline(docs)
	for _, q := range queries {
		res, err := ix.Search(Query{Text: q.Q, Limit: 5})
		if err != nil {
			return QualityReport{}, fmt.Errorf("search %q: %w", q.Q, err)
		}
		got := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			got[i] = h.Doc.ID
		}
		if !score(&rep.Ranker, got, q.Want) {
			rep.Misses = append(rep.Misses, QualityMiss{Query: q.Q, Want: q.Want, Got: got})
		}
		score(&rep.Baseline, base.search(q.Q, 5), q.Want)
	}
	if n := float64(len(queries)); n > 0 {
		for _, s := range []*QualityScore{&rep.Ranker, &rep.Baseline} {
			s.Top1 /= n
			s.RecallAt5 /= n
		}
	}
	return rep, nil
}

// score adds one query's top-1 and recall@5 to s and reports whether the
// first hit was right.
func score(s *QualityScore, got, want []string) bool {
	hit1 := len(got) > 0 && slices.Contains(want, got[0])
	if hit1 {
		s.Top1++
	}
	found := 0
	for _, id := range got[:min(5, len(got))] {
		if slices.Contains(want, id) {
			found++
		}
	}
	s.RecallAt5 += float64(found) / float64(min(5, len(want)))
	return hit1
}

// LoadToolDocs reads every <plugin>.json in dir, each a tools/list answer of
// one MCP server, into docs with IDs x_<plugin>_<name>.
func LoadToolDocs(dir string) ([]Doc, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list tool files: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no tool files in %s: %w", dir, ErrQualityData)
	}
	var docs []Doc
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read tool file: %w", err)
		}
		var tools []toolFile
		if err := json.Unmarshal(raw, &tools); err != nil {
			return nil, fmt.Errorf("parse tool file %s: %w", file, err)
		}
		plugin := strings.TrimSuffix(filepath.Base(file), ".json")
		for _, t := range tools {
			d := Doc{ID: "x_" + plugin + "_" + t.Name, Plugin: plugin, Name: t.Name, Description: t.Description}
			for name, p := range t.InputSchema.Properties {
				d.Params = append(d.Params, Param{Name: name, Description: p.Description})
			}
			slices.SortFunc(d.Params, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// baseline is textbook BM25 over one field (name and description run
// together), the yardstick the ranker has to beat.
type baseline struct {
	ids    []string
	tf     []map[string]int
	length []int
	df     map[string]int
	avg    float64
}

func newBaseline(docs []Doc) *baseline {
	b := &baseline{df: map[string]int{}}
	total := 0
	for _, d := range docs {
		toks := Tokenize(d.Name + " " + d.Description)
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
	qs := Tokenize(text)
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
