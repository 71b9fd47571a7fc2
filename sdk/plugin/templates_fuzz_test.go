package plugin

import (
	"net/url"
	"strings"
	"testing"
)

// A client sends any URI; matching it never panics, and a {name} value it
// yields, escaped again, is a segment of the URI it came from.
func FuzzTemplateMatch(f *testing.F) {
	for _, s := range []string{"notes://note/1", "notes://note/a%20b", "notes://note/%zz", "notes://tag/x/y/z", "", "notes://note/"} {
		f.Add(s)
	}
	one, err := compileTemplate("notes://note/{id}")
	if err != nil {
		f.Fatal(err)
	}
	rest, err := compileTemplate("notes://tag/{tag}/{+path}")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		if vars, ok := matchTemplate(one, uri); ok {
			if len(vars) != 1 || strings.Contains(strings.TrimPrefix(uri, "notes://note/"), "/") {
				t.Fatalf("%q matched {id} as %v", uri, vars)
			}
			if got := "notes://note/" + url.PathEscape(vars["id"]); !strings.EqualFold(mustUnescape(t, got), mustUnescape(t, uri)) {
				t.Fatalf("%q: id %q does not come from it", uri, vars["id"])
			}
		}
		if vars, ok := matchTemplate(rest, uri); ok && (len(vars) != 2 || !strings.HasSuffix(mustUnescape(t, uri), "/"+vars["path"])) {
			t.Fatalf("%q matched as %v", uri, vars)
		}
	})
}

func mustUnescape(t *testing.T, s string) string {
	u, err := url.PathUnescape(s)
	if err != nil {
		t.Fatalf("unescape %q: %v", s, err)
	}
	return u
}
