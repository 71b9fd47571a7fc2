package search

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRewriteQuery(t *testing.T) {
	tests := []struct {
		in   string
		want []string // words the rewrite must contain
		not  []string // words it must no longer contain
	}{
		{"summarise report.pdf", []string{"file"}, []string{"report", "pdf"}},
		{"show me /etc/hosts", []string{"path"}, []string{"etc", "hosts"}},
		{"open ~/notes/todo.md", []string{"file", "path"}, []string{"todo", "notes"}},
		{"fetch https://example.com/a?b=1", []string{"url"}, []string{"example"}},
		{"what is 17 * 4", []string{"number", "multiply"}, []string{"17"}},
		{"add 2 and 3.5", []string{"number"}, []string{"3.5"}},
		{"seven plus five", []string{"add"}, nil},
		{"list k8s pods", []string{"k8s", "pods"}, nil},
		{"e.g. restart v1.2", []string{"restart"}, nil},
		{"which buckets exist", []string{"list", "buckets"}, nil},
		{"who is on call", []string{"list"}, nil},
		{"what pods are running", []string{"list"}, nil},
		{"what is causing this error", nil, []string{"list"}},
	}
	for _, tt := range tests {
		got := strings.Fields(rewriteQuery(tt.in))
		for _, w := range tt.want {
			if !contains(got, w) {
				t.Errorf("rewriteQuery(%q) = %q, want %q in it", tt.in, got, w)
			}
		}
		for _, w := range tt.not {
			if contains(got, w) {
				t.Errorf("rewriteQuery(%q) = %q, want no %q", tt.in, got, w)
			}
		}
	}
}

// TestQueryUnderstanding runs requests whose point is an argument or a
// plugin's name against the real catalogs of six MCP servers.
func TestQueryUnderstanding(t *testing.T) {
	ix := realCatalog(t, "k8s", "prom", "filesystem", "memory", "everything", "thinking")
	top := func(q string) []string { return ids(t, ix, Query{Text: q, Limit: 5}) }
	for _, tt := range []struct{ q, want string }{
		{"what is 12 + 30", "x_everything_get-sum"},
	} {
		if got := top(tt.q); len(got) == 0 || got[0] != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.q, got, tt.want)
		}
	}
	// A file name points at file tools, not at tools sharing its letters.
	if got := top("show me quarterly-report.txt"); len(got) == 0 || !strings.HasPrefix(got[0], "x_filesystem_") {
		t.Errorf("Search(show me quarterly-report.txt) = %v, want a filesystem tool first", got)
	}
	// A distinctive plugin name narrows; a common word does not.
	for _, q := range []string{"k8s delete", "prometheus labels"} {
		got := top(q)
		plugin := map[string]string{"k8s delete": "x_k8s_", "prometheus labels": "x_prom_"}[q]
		for _, id := range got {
			if !strings.HasPrefix(id, plugin) {
				t.Errorf("Search(%q) = %v: %s is not in the named plugin", q, got, id)
			}
		}
		if len(got) == 0 {
			t.Errorf("Search(%q) found nothing", q)
		}
	}
	if got := top("graph memory usage since yesterday"); len(got) > 0 && strings.HasPrefix(got[0], "x_memory_") {
		t.Errorf("Search(graph memory usage ...) = %v: the word memory narrowed to the memory plugin", got)
	}
}

// FuzzRewriteQuery: any request text rewrites without panic into valid text.
func FuzzRewriteQuery(f *testing.F) {
	for _, s := range []string{"read a.txt", "/", "1+1", "http://x", "~/", "3 plus 4", "a/b/c.tar.gz", "\xff/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := rewriteQuery(s)
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("rewriteQuery(%q) = %q: not valid UTF-8", s, out)
		}
	})
}
