// Command fit-reranker fits the linear model that reorders the head of
// filter_tools' ranking (core/search/rerank.go) and writes its weights to
// core/search/rerank_weights.go.
//
// It reads the tuning half of the labelled queries only, through
// search.TuningSamples; the held-out half never shapes the model and stays
// the measure of whether it helps. Each tuning query counts twice: ranked
// over the labelled tools alone and among generated distractor tools, so
// the weights suit a crowded catalog too. The strength of the L2 penalty is
// chosen by cross-validation over folds of the tuning half (a query's fold
// is fixed by the hash of its text), then the model is fitted on the whole
// tuning half.
//
// -without names features to leave out (their weights stay 0), to compare a
// fit with a feature against the same fit without it.
//
//	go run ./scripts/fit-reranker [-write] [-without f1,f2] [core/search/testdata]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/core/search"
)

const folds = 5

func main() {
	write := flag.Bool("write", false, "write core/search/rerank_weights.go")
	distractors := flag.Int("distractors", 10000, "distractor tools for the second copy of each query")
	without := flag.String("without", "", "comma-separated features to leave out of the fit")
	flag.Parse()
	dir := "core/search/testdata"
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	plain, err := search.TuningSamples(dir, 0)
	if err != nil {
		fail(err)
	}
	crowded, err := search.TuningSamples(dir, *distractors)
	if err != nil {
		fail(err)
	}
	if err := dropFeatures(*without, plain, crowded); err != nil {
		fail(err)
	}
	samples := slices.Concat(plain, crowded)

	fmt.Printf("%d tuning queries, %d features\n", len(plain), len(search.RerankFeatureNames))
	fmt.Printf("fused order: plain %s, crowded %s\n", score(plain, nil), score(crowded, nil))
	best, bestLambda := -1.0, 0.0
	for _, lambda := range []float64{0.001, 0.003, 0.01, 0.03, 0.1, 0.3} {
		var cvPlain, cvCrowded []search.RerankSample
		var wPlain, wCrowded [][]float64
		for k := range folds {
			var train []search.RerankSample
			for _, s := range samples {
				if fold(s.Query) != k {
					train = append(train, s)
				}
			}
			w := fit(train, lambda)
			for _, s := range plain {
				if fold(s.Query) == k {
					cvPlain, wPlain = append(cvPlain, s), append(wPlain, w)
				}
			}
			for _, s := range crowded {
				if fold(s.Query) == k {
					cvCrowded, wCrowded = append(cvCrowded, s), append(wCrowded, w)
				}
			}
		}
		p, c := scoreEach(cvPlain, wPlain), scoreEach(cvCrowded, wCrowded)
		fmt.Printf("lambda %-6g cross-validated: plain %s, crowded %s\n", lambda, p, c)
		if v := p.top1 + p.recall + c.top1 + c.recall; v > best {
			best, bestLambda = v, lambda
		}
	}
	w := fit(samples, bestLambda)
	fmt.Printf("lambda %g on the whole tuning half: plain %s, crowded %s\n", bestLambda, score(plain, w), score(crowded, w))
	for i, name := range search.RerankFeatureNames {
		fmt.Printf("  %-12s %+.3f\n", name, w[i])
	}
	if *write {
		if err := writeWeights("core/search/rerank_weights.go", w, bestLambda, len(plain)); err != nil {
			fail(err)
		}
	}
}

// dropFeatures sets the named features to 0 in every sample, so the fit
// leaves their weights at 0.
func dropFeatures(names string, sets ...[]search.RerankSample) error {
	if names == "" {
		return nil
	}
	for _, name := range strings.Split(names, ",") {
		f := slices.Index(search.RerankFeatureNames, strings.TrimSpace(name))
		if f < 0 {
			return fmt.Errorf("-without: no feature %q (the features are %s)", name, strings.Join(search.RerankFeatureNames, ", "))
		}
		for _, set := range sets {
			for _, s := range set {
				for _, x := range s.Features {
					x[f] = 0
				}
			}
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fit-reranker:", err)
	os.Exit(1)
}

// fold is the cross-validation fold of a query, fixed by its text.
func fold(q string) int {
	h := fnv.New32a()
	h.Write([]byte(q))
	return int(h.Sum32() % folds)
}

// fit minimises the listwise softmax loss (the negative log of the share of
// the head's probability that falls on right answers) plus lambda times the
// squared weights, by gradient descent with Adam.
func fit(samples []search.RerankSample, lambda float64) []float64 {
	nf := len(search.RerankFeatureNames)
	w := make([]float64, nf)
	m, v := make([]float64, nf), make([]float64, nf)
	const (
		steps = 1500
		rate  = 0.05
		b1    = 0.9
		b2    = 0.999
	)
	grad := make([]float64, nf)
	for t := 1; t <= steps; t++ {
		clear(grad)
		n := 0
		for _, s := range samples {
			if !slices.Contains(s.Right, true) || len(s.Right) < 2 {
				continue // nothing to learn from the order
			}
			n++
			sc := make([]float64, len(s.Features))
			top := math.Inf(-1)
			for i, x := range s.Features {
				sc[i] = dot(w, x)
				top = max(top, sc[i])
			}
			var all, right float64
			for i := range sc {
				sc[i] = math.Exp(sc[i] - top)
				all += sc[i]
				if s.Right[i] {
					right += sc[i]
				}
			}
			for i, x := range s.Features {
				p := sc[i] / all
				q := 0.0
				if s.Right[i] {
					q = sc[i] / right
				}
				for f := range grad {
					grad[f] += (p - q) * x[f]
				}
			}
		}
		for f := range w {
			g := grad[f]/float64(max(n, 1)) + 2*lambda*w[f]
			m[f] = b1*m[f] + (1-b1)*g
			v[f] = b2*v[f] + (1-b2)*g*g
			mh := m[f] / (1 - math.Pow(b1, float64(t)))
			vh := v[f] / (1 - math.Pow(b2, float64(t)))
			w[f] -= rate * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	return w
}

func dot(w, x []float64) float64 {
	s := 0.0
	for i := range w {
		s += w[i] * x[i]
	}
	return s
}

type figures struct{ top1, recall float64 }

func (f figures) String() string { return fmt.Sprintf("top-1 %.3f recall@5 %.3f", f.top1, f.recall) }

// score is top-1 and recall@5 of the samples reordered by w (nil: the
// fused order they come in).
func score(samples []search.RerankSample, w []float64) figures {
	ws := make([][]float64, len(samples))
	for i := range ws {
		ws[i] = w
	}
	return scoreEach(samples, ws)
}

func scoreEach(samples []search.RerankSample, ws [][]float64) figures {
	var f figures
	for si, s := range samples {
		order := make([]int, len(s.Features))
		for i := range order {
			order[i] = i
		}
		if w := ws[si]; w != nil {
			slices.SortStableFunc(order, func(a, b int) int {
				sa, sb := dot(w, s.Features[a]), dot(w, s.Features[b])
				switch {
				case sa > sb:
					return -1
				case sa < sb:
					return 1
				}
				return 0
			})
		}
		if len(order) > 0 && s.Right[order[0]] {
			f.top1++
		}
		found := 0
		for _, i := range order[:min(5, len(order))] {
			if s.Right[i] {
				found++
			}
		}
		if s.Wanted > 0 {
			f.recall += float64(min(found, s.Wanted)) / float64(s.Wanted)
		}
	}
	if n := float64(len(samples)); n > 0 {
		f.top1 /= n
		f.recall /= n
	}
	return f
}

func writeWeights(path string, w []float64, lambda float64, queries int) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by scripts/fit-reranker from the %d tuning queries; DO NOT EDIT.

package search

// rerankWeights is the model that reorders the head of the ranking
// (rerank.go), fitted on the tuning half only with L2 penalty %g.
var rerankWeights = [numFeatures]float64{
`, queries, lambda)
	for i, name := range search.RerankFeatureNames {
		fmt.Fprintf(&b, "\t%.4f, // %s\n", w[i], name)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return fmt.Errorf("format weights: %w", err)
	}
	return os.WriteFile(path, src, 0o644)
}
