package search

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestQuality scores both halves and lists the tuning misses to study. The
// held-out half prints figures only.
func TestQuality(t *testing.T) {
	rep, err := EvaluateQuality("testdata", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d tools; tuning %d queries, held-out %d", rep.Tools, rep.Tuning.Queries, rep.HeldOut.Queries)
	t.Logf("tuning   ranker top-1 %.3f recall@5 %.3f; bm25 top-1 %.3f recall@5 %.3f",
		rep.Tuning.Ranker.Top1, rep.Tuning.Ranker.RecallAt5, rep.Tuning.Baseline.Top1, rep.Tuning.Baseline.RecallAt5)
	for _, h := range []struct {
		name string
		r    HeldOutReport
	}{{"held-out", rep.HeldOut}, {"  first", rep.HeldOutFirst}, {"  fresh", rep.HeldOutFresh}} {
		t.Logf("%-8s %d queries: ranker top-1 %.3f recall@5 %.3f; bm25 top-1 %.3f recall@5 %.3f", h.name, h.r.Queries,
			h.r.Ranker.Top1, h.r.Ranker.RecallAt5, h.r.Baseline.Top1, h.r.Baseline.RecallAt5)
	}
	for _, m := range rep.Tuning.Misses {
		t.Logf("miss: %v want %v got %v", m.Query, m.Query.Want, m.Got)
	}
	if rep.Tuning.Queries < 200 || rep.HeldOutFirst.Queries < 150 || rep.HeldOutFresh.Queries < 150 {
		t.Errorf("quality set has %d tuning and %d + %d held-out queries, want at least 200 and 150 + 150",
			rep.Tuning.Queries, rep.HeldOutFirst.Queries, rep.HeldOutFresh.Queries)
	}
	if rep.HeldOut.Queries != rep.HeldOutFirst.Queries+rep.HeldOutFresh.Queries {
		t.Errorf("held-out counts %d queries, its files %d + %d", rep.HeldOut.Queries, rep.HeldOutFirst.Queries, rep.HeldOutFresh.Queries)
	}
	if got, want := len(rep.Tuning.Misses), int(float64(rep.Tuning.Queries)*(1-rep.Tuning.Ranker.Top1)+0.5); got != want {
		t.Errorf("%d tuning misses, but top-1 %.3f of %d queries says %d", got, rep.Tuning.Ranker.Top1, rep.Tuning.Queries, want)
	}
}

// TestQuerySplit holds the split on the committed files: every hashed query
// in the half its hash names, none on both sides or in both held-out files,
// at least 400 of them, and every catalog asked about.
func TestQuerySplit(t *testing.T) {
	tuning, err := loadQueries(filepath.Join("testdata", tuningFile))
	if err != nil {
		t.Fatal(err)
	}
	var heldOutSets [][]QualityQuery
	for _, name := range heldOutFiles {
		qs, err := loadQueries(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		heldOutSets = append(heldOutSets, qs)
	}
	heldOut := slices.Concat(heldOutSets...)
	tunedOn, err := loadQueries(filepath.Join("testdata", tunedOnFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkSplit(tuning, tunedOn, heldOutSets...); err != nil {
		t.Fatal(err)
	}
	if n := len(tuning) + len(heldOut); n < 400 {
		t.Errorf("%d hashed queries, want at least 400", n)
	}
	docs, err := loadCatalogs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]bool{}
	for _, q := range append(tuning, heldOut...) {
		for _, id := range q.Want {
			for _, d := range docs {
				if d.ID == id {
					asked[d.Plugin] = true
				}
			}
		}
	}
	for _, d := range docs {
		if !asked[d.Plugin] {
			t.Errorf("no hashed query asks for a tool of catalog %q", d.Plugin)
			asked[d.Plugin] = true
		}
	}
}

func TestHeldOutByHash(t *testing.T) {
	for _, text := range []string{"git stauts", "  Git   STAUTS ", "git\tstauts"} {
		if heldOutByHash(text) != heldOutByHash("git stauts") {
			t.Errorf("%q: normalising must not change the half", text)
		}
	}
	// FNV-1a 64 test vectors: "" is the offset basis 0xcbf29ce484222325
	// (odd), "a" is 0xaf63dc4c8601ec8c (even).
	if !heldOutByHash("") || heldOutByHash("a") || heldOutByHash(" A ") {
		t.Error(`want "" held out and "a" (and " A ") in tuning`)
	}
}

func TestCheckSplitRejects(t *testing.T) {
	var even, odd QualityQuery
	for _, text := range []string{"a", "b", "c", "d", "e", "f"} {
		q := QualityQuery{Text: text, Want: []string{"x"}, File: "f.yaml", Line: 3}
		if heldOutByHash(text) {
			odd = q
		} else {
			even = q
		}
	}
	if odd.Text == "" || even.Text == "" {
		t.Fatal("no query of each parity among the samples")
	}
	oddFresh := odd
	oddFresh.File, oddFresh.Line = "g.yaml", 9
	for name, c := range map[string]struct {
		tuning, tunedOn, heldOut, fresh []QualityQuery
		says                            string
	}{
		"held-out query in tuning":    {tuning: []QualityQuery{odd}, says: heldOutFreshFile},
		"tuning query in held-out":    {heldOut: []QualityQuery{even}, says: tuningFile},
		"tuning query in fresh":       {fresh: []QualityQuery{even}, says: tuningFile},
		"tuned-on query held out":     {tunedOn: []QualityQuery{odd}, heldOut: []QualityQuery{odd}, says: "also on the tuning side"},
		"tuned-on query fresh":        {tunedOn: []QualityQuery{odd}, fresh: []QualityQuery{odd}, says: "also on the tuning side"},
		"query in both held-out sets": {heldOut: []QualityQuery{odd}, fresh: []QualityQuery{oddFresh}, says: "g.yaml:9: query"},
	} {
		err := checkSplit(c.tuning, c.tunedOn, c.heldOut, c.fresh)
		if !errors.Is(err, ErrQualityData) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "f.yaml:3") {
			t.Errorf("%s: err = %v, want ErrQualityData naming f.yaml:3 and %q", name, err, c.says)
		}
	}
	if err := checkSplit([]QualityQuery{even}, []QualityQuery{odd}, nil, nil); err != nil {
		t.Errorf("tuned-on queries are exempt from the hash: %v", err)
	}
}

func TestLoadQueriesErrors(t *testing.T) {
	for name, c := range map[string]struct{ yaml, says string }{
		"not yaml":  {"- {q: \"a\", want: [x\n", "q.yaml"},
		"not list":  {"q: a\n", "q.yaml: want a list"},
		"no text":   {"- {q: \"\", want: [x_a_b]}\n", "q.yaml:1: query has no text"},
		"no want":   {"- {q: \"find it\"}\n", `q.yaml:1: query "find it" expects no tool`},
		"repeated":  {"- {q: \"Find  it\", want: [x]}\n- {q: \"find it\", want: [x]}\n", `q.yaml:2: query "find it" repeats line 1`},
		"bad entry": {"- {q: [1, 2], want: [x]}\n", "q.yaml:1"},
	} {
		path := filepath.Join(t.TempDir(), "q.yaml")
		if err := os.WriteFile(path, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := loadQueries(path)
		if !errors.Is(err, ErrQualityData) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err = %v, want ErrQualityData saying %q", name, err, c.says)
		}
	}
}

// writeSet writes a minimal quality set; edit changes one file before the load.
func writeSet(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	base := map[string]string{
		"catalogs/srv.json": `{"package": "srv", "version": "1.0.0", "tools": [{"name": "echo", "description": "Echoes"}]}`,
		"tools/own.json":    `[{"name": "ping", "description": "Pings"}]`,
		tuningFile:          "[]\n",
		tunedOnFile:         "[]\n",
		heldOutFile:         "[]\n",
		heldOutFreshFile:    "[]\n",
	}
	for k, v := range files {
		base[k] = v
	}
	for name, body := range base {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadQualitySetErrors(t *testing.T) {
	even, odd := "a", "a"
	for heldOutByHash(even) {
		even += "a"
	}
	for !heldOutByHash(odd) {
		odd += "a"
	}
	oddQuery := `- {q: "` + odd + `", want: [x_srv_echo]}`
	for name, c := range map[string]struct {
		files map[string]string
		says  string
	}{
		"unknown tool": {map[string]string{tuningFile: `- {q: "` + even + `", want: [x_srv_nope]}`},
			tuningFile + `:1: query "` + even + `" expects unknown tool "x_srv_nope"`},
		"catalog without version": {map[string]string{"catalogs/srv.json": `{"package": "srv", "tools": [{"name": "echo"}]}`},
			"srv.json: no package or version"},
		"catalog not json": {map[string]string{"catalogs/srv.json": `[`}, "srv.json"},
		"empty catalog":    {map[string]string{"catalogs/srv.json": `{"package": "s", "version": "1", "tools": []}`}, "srv.json lists no tools"},
		"catalog twice":    {map[string]string{"tools/srv.json": `[{"name": "x"}]`}, `catalog "srv" is also in`},
		"held out twice": {map[string]string{heldOutFile: oddQuery, heldOutFreshFile: oddQuery},
			heldOutFreshFile + `:1: query "` + odd + `" is also held out at ` + heldOutFile + ":1"},
		"unknown tool in fresh": {map[string]string{heldOutFreshFile: `- {q: "` + odd + `", want: [x_srv_nope]}`},
			heldOutFreshFile + `:1: query "` + odd + `" expects unknown tool "x_srv_nope"`},
	} {
		_, err := LoadQualitySet(writeSet(t, c.files))
		if !errors.Is(err, ErrQualityData) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err = %v, want ErrQualityData saying %q", name, err, c.says)
		}
	}
	set, err := LoadQualitySet(writeSet(t, map[string]string{tuningFile: `- {q: "` + even + `", want: [x_own_ping]}`,
		heldOutFreshFile: oddQuery}))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Docs) != 2 || len(set.Tuning) != 1 || set.HeldOutLen() != 1 || len(set.heldOut[1]) != 1 {
		t.Errorf("loaded %d docs, %d tuning, %d held-out (%d fresh); want 2, 1, 1 (1)",
			len(set.Docs), len(set.Tuning), set.HeldOutLen(), len(set.heldOut[1]))
	}
}

// TestPooledScoresTheUnion holds that the whole held-out figure is the
// figure of both files' queries scored together.
func TestPooledScoresTheUnion(t *testing.T) {
	answers := map[string][]string{"a": {"x"}, "b": {"y", "x"}, "c": {"z"}, "d": {"w", "v", "x"}}
	rank := func(text string) ([]string, error) { return answers[text], nil }
	first := []QualityQuery{{Text: "a", Want: []string{"x"}}, {Text: "b", Want: []string{"x"}}}
	fresh := []QualityQuery{{Text: "c", Want: []string{"x", "z"}}, {Text: "d", Want: []string{"x"}}, {Text: "a", Want: []string{"y"}}}
	score := func(qs []QualityQuery) HeldOutReport {
		s, err := scoreQueries(rank, qs, nil)
		if err != nil {
			t.Fatal(err)
		}
		return HeldOutReport{Queries: len(qs), QualityScores: QualityScores{Ranker: s, BaselineDistracted: s}}
	}
	got, want := pooled(score(first), score(fresh)), score(slices.Concat(first, fresh))
	const eps = 1e-12
	for _, p := range [][2]QualityScore{{got.Ranker, want.Ranker}, {got.BaselineDistracted, want.BaselineDistracted}} {
		if got.Queries != 5 || math.Abs(p[0].Top1-p[1].Top1) > eps || math.Abs(p[0].RecallAt5-p[1].RecallAt5) > eps {
			t.Errorf("pooled %d queries %+v, want 5 %+v", got.Queries, p[0], p[1])
		}
	}
	if math.Abs(want.Ranker.Top1-0.4) > eps || math.Abs(want.Ranker.RecallAt5-0.7) > eps {
		t.Errorf("union scores %+v, want top-1 0.4 recall@5 0.7", want.Ranker)
	}
	if empty := pooled(HeldOutReport{}, HeldOutReport{}); empty != (HeldOutReport{}) {
		t.Errorf("pooled nothing = %+v", empty)
	}
}
