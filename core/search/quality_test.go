package search

import (
	"errors"
	"os"
	"path/filepath"
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
	t.Logf("held-out ranker top-1 %.3f recall@5 %.3f; bm25 top-1 %.3f recall@5 %.3f",
		rep.HeldOut.Ranker.Top1, rep.HeldOut.Ranker.RecallAt5, rep.HeldOut.Baseline.Top1, rep.HeldOut.Baseline.RecallAt5)
	for _, m := range rep.Tuning.Misses {
		t.Logf("miss: %v want %v got %v", m.Query, m.Query.Want, m.Got)
	}
	if rep.Tuning.Queries < 200 || rep.HeldOut.Queries < 150 {
		t.Errorf("quality set has %d tuning and %d held-out queries, want at least 200 and 150",
			rep.Tuning.Queries, rep.HeldOut.Queries)
	}
	if got, want := len(rep.Tuning.Misses), int(float64(rep.Tuning.Queries)*(1-rep.Tuning.Ranker.Top1)+0.5); got != want {
		t.Errorf("%d tuning misses, but top-1 %.3f of %d queries says %d", got, rep.Tuning.Ranker.Top1, rep.Tuning.Queries, want)
	}
}

// TestQuerySplit holds the split on the committed files: every hashed query
// in the file its hash names, none on both sides, at least 400 of them, and
// every catalog asked about.
func TestQuerySplit(t *testing.T) {
	tuning, err := loadQueries(filepath.Join("testdata", tuningFile))
	if err != nil {
		t.Fatal(err)
	}
	heldOut, err := loadQueries(filepath.Join("testdata", heldOutFile))
	if err != nil {
		t.Fatal(err)
	}
	tunedOn, err := loadQueries(filepath.Join("testdata", tunedOnFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkSplit(tuning, tunedOn, heldOut); err != nil {
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
	for name, c := range map[string]struct {
		tuning, tunedOn, heldOut []QualityQuery
		says                     string
	}{
		"held-out query in tuning": {tuning: []QualityQuery{odd}, says: heldOutFile},
		"tuning query in held-out": {heldOut: []QualityQuery{even}, says: tuningFile},
		"tuned-on query held out":  {tunedOn: []QualityQuery{odd}, heldOut: []QualityQuery{odd}, says: "also on the tuning side"},
	} {
		err := checkSplit(c.tuning, c.tunedOn, c.heldOut)
		if !errors.Is(err, ErrQualityData) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "f.yaml:3") {
			t.Errorf("%s: err = %v, want ErrQualityData naming f.yaml:3 and %q", name, err, c.says)
		}
	}
	if err := checkSplit([]QualityQuery{even}, []QualityQuery{odd}, nil); err != nil {
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
	even := "a"
	for heldOutByHash(even) {
		even += "a"
	}
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
	} {
		_, err := LoadQualitySet(writeSet(t, c.files))
		if !errors.Is(err, ErrQualityData) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err = %v, want ErrQualityData saying %q", name, err, c.says)
		}
	}
	set, err := LoadQualitySet(writeSet(t, map[string]string{tuningFile: `- {q: "` + even + `", want: [x_own_ping]}`}))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Docs) != 2 || len(set.Tuning) != 1 || set.HeldOutLen() != 0 {
		t.Errorf("loaded %d docs, %d tuning, %d held-out; want 2, 1, 0", len(set.Docs), len(set.Tuning), set.HeldOutLen())
	}
}
