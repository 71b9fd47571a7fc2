// Command quality prints filter_tools' ranking quality on the labelled query
// set, tuning half and held-out half, next to a plain BM25 baseline, on the
// captured catalogs alone and with distractor tools added. The held-out half
// is printed whole and per file: the first set (queries-heldout.yaml), scored
// after each method round, and the fresh set (queries-heldout-fresh.yaml),
// written after those rounds. It prints figures only: the tuning misses are
// for `go test -run TestQuality -v`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolgate/toolgate/core/search"
)

func main() {
	distractors := flag.Int("distractors", 10000, "synthetic tools added for the distracted rows")
	flag.Parse()
	dir := "core/search/testdata"
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	r, err := search.EvaluateQuality(dir, *distractors)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quality:", err)
		os.Exit(1)
	}
	fmt.Printf("%d labelled tools; +%d distractors. Tuning: %d queries (incl. the tuned-on set); "+
		"held-out: %d queries (first set %d, fresh set %d).\n\n",
		r.Tools, r.Distractors, r.Tuning.Queries, r.HeldOut.Queries, r.HeldOutFirst.Queries, r.HeldOutFresh.Queries)
	fmt.Println("| half | ranker | tools | queries | top-1 | recall@5 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, h := range []struct {
		name    string
		queries int
		s       search.QualityScores
	}{
		{"tuning", r.Tuning.Queries, r.Tuning.QualityScores},
		{"held-out (all)", r.HeldOut.Queries, r.HeldOut.QualityScores},
		{"held-out, first set", r.HeldOutFirst.Queries, r.HeldOutFirst.QualityScores},
		{"held-out, fresh set", r.HeldOutFresh.Queries, r.HeldOutFresh.QualityScores},
	} {
		for _, row := range []struct {
			ranker string
			tools  int
			s      search.QualityScore
		}{
			{"filter_tools", r.Tools, h.s.Ranker},
			{"plain BM25", r.Tools, h.s.Baseline},
			{"filter_tools", r.Tools + r.Distractors, h.s.RankerDistracted},
			{"plain BM25", r.Tools + r.Distractors, h.s.BaselineDistracted},
		} {
			fmt.Printf("| %s | %s | %d | %d | %.3f | %.3f |\n", h.name, row.ranker, row.tools, h.queries, row.s.Top1, row.s.RecallAt5)
		}
	}
}
