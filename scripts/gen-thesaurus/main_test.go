package main

import (
	"bufio"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tiny WordNet in the real files' format (wndb(5WN)): "erase" (verb) has
// the synonym "delete", a broader verb "remove" and the derived noun
// "erasure"; its agent noun "eraser" is noun.person and left out. "lark"
// is a noun never seen in the tagged corpus and gets no entry. The
// adjective "small" has the synonym "little", the similar satellite "tiny"
// and is a value of the noun "size".
var miniWordNet = map[string]string{
	"data.verb": "  1 licence header line\n" +
		"00000100 30 v 02 erase 0 delete 0 002 @ 00000200 v 0000 + 00000300 n 0101 | remove by rubbing\n" +
		"00000200 30 v 01 remove 0 000 | take away\n",
	"data.noun": "00000300 04 n 01 erasure 0 001 + 00000100 v 0101 | the act of erasing\n" +
		"00000400 18 n 01 eraser 0 001 + 00000100 v 0101 | a person who erases\n" +
		"00000500 05 n 01 lark 0 000 | a bird\n" +
		"00000800 07 n 01 size 0 001 = 00000600 a 0000 | physical magnitude\n",
	"data.adj": "00000600 00 a 02 small(a) 0 little 0 002 = 00000800 n 0000 & 00000700 s 0000 | limited in size\n" +
		"00000700 00 s 01 tiny 0 001 & 00000600 a 0000 | very small\n",
	"index.adj":  "small a 1 2 = & 1 1 00000600\ntiny a 1 1 & 1 1 00000700\nlittle a 1 1 & 1 0 00000600\n",
	"index.verb": "erase v 1 2 @ + 1 0 00000100\ndelete v 1 1 @ 1 1 00000100\nremove v 1 0 1 1 00000200\n",
	"index.noun": "erasure n 1 1 + 1 1 00000300\neraser n 1 1 + 1 1 00000400\nlark n 1 0 1 0 00000500\nsize n 1 1 = 1 1 00000800\n",
}

func TestRunOnMiniWordNet(t *testing.T) {
	dir := t.TempDir()
	for name, text := range miniWordNet {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "th.txt.gz")
	if err := run(dir, out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		w, rel, _ := strings.Cut(sc.Text(), "\t")
		got[w] = rel
	}
	want := map[string]string{
		"erase":   "delete erasure remove",
		"delete":  "erase remove",
		"erasure": "erase",
		"small":   "little size tiny",
		"tiny":    "small little",
	}
	for w, rel := range want {
		if got[w] != rel {
			t.Errorf("entry %q = %q, want %q", w, got[w], rel)
		}
	}
	for _, w := range []string{"lark", "eraser", "remove", "little", "size"} {
		if _, ok := got[w]; ok {
			t.Errorf("unexpected entry %q: %q", w, got[w])
		}
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := run(dir, filepath.Join(dir, "out.gz")); err == nil || !strings.Contains(err.Error(), "data.noun") {
		t.Errorf("missing files: err = %v, want one naming data.noun", err)
	}
	for name, text := range miniWordNet {
		_ = os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	_ = os.WriteFile(filepath.Join(dir, "data.verb"), []byte("00000100 30 v zz erase 0\n"), 0o644)
	if err := run(dir, filepath.Join(dir, "out.gz")); err == nil || !strings.Contains(err.Error(), "data.verb:1") {
		t.Errorf("bad word count: err = %v, want one naming data.verb:1", err)
	}
}
