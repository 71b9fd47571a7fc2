package search

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"x_everything_echo", []string{"x", "everything", "echo"}},
		{"get-tiny-image", []string{"get", "tiny", "image"}},
		{"listPods", []string{"list", "pods"}},
		{"HTTPServerStatus", []string{"http", "server", "status"}},
		{"io.k8s.api.core", []string{"io", "k8s", "api", "core"}},
		{"getV1Pods2", []string{"get", "v1", "pods", "2"}},
		{"sha256sum", []string{"sha", "256", "sum"}},
		{"s3 i18n", []string{"s3", "i18n"}},
		{"  --__  ", nil},
		{"Übersicht_der_Dateien", []string{"übersicht", "der", "dateien"}},
		{"ΛίσταΑρχείων", []string{"λίστα", "αρχείων"}},
		{"ファイル一覧を表示", []string{"ファイル一覧を表示"}},
		{"café-naïve", []string{"café", "naïve"}},
		{"e\u0301cole", []string{"e\u0301cole"}}, // combining accent stays in the word
		{"bad\xffutf8", []string{"bad", "utf", "8"}},
	}
	for _, tt := range tests {
		if got := Tokenize(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStem(t *testing.T) {
	same := [][]string{
		{"list", "lists", "listing", "listed"},
		{"delete", "deletes", "deleted", "deleting"},
		{"directory", "directories"},
		{"query", "queries"},
		{"run", "running", "runs"},
		{"image", "images"},
		{"log", "logs", "logging"},
		{"process", "processes"},
		{"copy", "copied", "copies"},
		{"create", "creates", "creating"},
		{"delete", "deletion"},
		{"configure", "configuration"},
	}
	for _, words := range same {
		for _, w := range words[1:] {
			if stem(w) != stem(words[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q; want equal", w, stem(w), words[0], stem(words[0]))
			}
		}
	}
	// Words that only look inflected keep their meaning apart.
	for _, w := range []string{"status", "string", "thing", "address", "ls", "k8s", "übersicht"} {
		if s := stem(w); s == "" || !strings.HasPrefix(w, s[:1]) {
			t.Errorf("stem(%q) = %q", w, s)
		}
	}
	if stem("string") != "string" {
		t.Errorf("stem(string) = %q, a word without a vowel before -ing keeps it", stem("string"))
	}
}

// FuzzTokenize checks the promises other code relies on: tokens are
// non-empty valid UTF-8 in lower case, contain no separators, come back
// unchanged when tokenized again, and both code paths agree on ASCII.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"x_everything_echo", "listPods", "HTTPServer", "k8s v1 sha256",
		"Übersicht", "ファイル", "e\u0301", "bad\xff", "ǅemal", "ΣΑΣ", "İstanbul", "x1y2z3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokenize(s)
		for _, tok := range toks {
			if tok == "" || !utf8.ValidString(tok) {
				t.Fatalf("Tokenize(%q): bad token %q", s, tok)
			}
			for _, r := range tok {
				if classify(r) == classSep || unicode.ToLower(r) != r {
					t.Fatalf("Tokenize(%q): token %q has %q", s, tok, r)
				}
			}
			if again := Tokenize(tok); len(again) != 1 || again[0] != tok {
				t.Fatalf("Tokenize(%q): token %q re-tokenizes to %q", s, tok, again)
			}
			_ = stem(tok)
		}
		if isASCII(s) {
			if slow := tokenizeRunes(nil, s); !slices.Equal(toks, slow) {
				t.Fatalf("Tokenize(%q): ASCII path %q, rune path %q", s, toks, slow)
			}
		}
	})
}
