package main

import (
	"slices"
	"strings"
	"testing"
)

const sample = `
directory
directories
folder

   <file system> A node in a hierarchical {file system} which
   contains zero or more other nodes.

   (2007-02-21)

web

   1. <hypertext> {World-Wide Web}.

   2. <language> Donald Knuth's literate programming language.

World-Wide Web
www

   <web, networking, hypertext> (WWW, W3, the web) A
   {client-server} {hypertext} distributed information system.

   (1995-03-21)

delete

   <operating system> To {remove} a {file} from a {file system}.

   (2001-01-01)
`

func TestRelate(t *testing.T) {
	// parse wants a real dictionary's size; relate is checked on the sample.
	text := strings.Repeat(sample, 300)
	entries, err := parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4*300 {
		t.Fatalf("parsed %d entries, want %d", len(entries), 4*300)
	}
	if got := entries[0].heads; !slices.Equal(got, []string{"directory", "directories", "folder"}) {
		t.Errorf("first entry's headwords = %v", got)
	}
	rel := relate(entries[:4])
	for _, c := range []struct{ word, want string }{{"folder", "directory"}, {"directory", "folder"}, {"web", "www"}, {"www", "web"}} {
		if !slices.Contains(rel[c.word], c.want) {
			t.Errorf("related[%q] = %v, want %q among them", c.word, rel[c.word], c.want)
		}
	}
	// A definition that only mentions another entry is not an alias.
	if r := rel["delete"]; len(r) != 0 {
		t.Errorf("related[delete] = %v, want nothing", r)
	}
}

func TestParseRejectsSmallFile(t *testing.T) {
	if _, err := parse(strings.NewReader(sample)); err == nil || !strings.Contains(err.Error(), "entries") {
		t.Fatalf("err = %v, want one saying how few entries", err)
	}
}
