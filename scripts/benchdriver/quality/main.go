// Command quality prints filter_tools' ranking quality on the labelled query
// set next to a plain BM25 baseline on the same set.
package main

import (
	"fmt"
	"os"

	"github.com/toolgate/toolgate/core/search"
)

func main() {
	dir := "core/search/testdata"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	r, err := search.EvaluateQuality(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "quality:", err)
		os.Exit(1)
	}
	fmt.Printf("%d queries over %d tools.\n\n", r.Queries, r.Tools)
	fmt.Println("| ranker | top-1 | recall@5 |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| filter_tools (BM25F + fuzzy, fused) | %.3f | %.3f |\n", r.Ranker.Top1, r.Ranker.RecallAt5)
	fmt.Printf("| plain BM25 baseline | %.3f | %.3f |\n", r.Baseline.Top1, r.Baseline.RecallAt5)
}
