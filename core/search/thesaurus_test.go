package search

import (
	"bytes"
	"compress/gzip"
	"slices"
	"strings"
	"testing"
)

// TestThesaurusEmbedded checks that the generated WordNet file is readable
// and carries relations a request needs, in both directions.
func TestThesaurusEmbedded(t *testing.T) {
	th := thesaurus()
	if len(th.words) < 5000 {
		t.Fatalf("thesaurus has %d words, want thousands", len(th.words))
	}
	for _, pair := range [][2]string{{"alarm", "alert"}, {"delete", "remove"}, {"remove", "delete"}, {"picture", "image"}, {"modify", "change"}, {"big", "size"}, {"size", "big"}, {"small", "tiny"}} {
		if rel := slices.Collect(th.of(stem(pair[0]))); !contains(rel, stem(pair[1])) {
			t.Errorf("thesaurus[%q] = %v, want %q among them", stem(pair[0]), rel, stem(pair[1]))
		}
	}
}

func TestParseThesaurusRejectsBadLines(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte("alarm\talert\nbroken line\n"))
	_ = zw.Close()
	_, err := parseThesaurus(buf.Bytes())
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want one naming line 2", err)
	}
	if _, err := parseThesaurus([]byte("not gzip")); err == nil {
		t.Fatal("plain text accepted as the gzip thesaurus")
	}
}

// TestComputingEmbedded checks that the generated FOLDOC file is readable
// and carries the computing senses WordNet lacks, in both directions.
func TestComputingEmbedded(t *testing.T) {
	c := computing()
	if len(c.words) < 300 {
		t.Fatalf("computing thesaurus has %d words, want hundreds", len(c.words))
	}
	for _, pair := range [][2]string{{"folder", "directory"}, {"directory", "folder"}, {"web", "www"}} {
		if rel := slices.Collect(c.of(stem(pair[0]))); !contains(rel, stem(pair[1])) {
			t.Errorf("computing[%q] = %v, want %q among them", stem(pair[0]), rel, stem(pair[1]))
		}
	}
}
