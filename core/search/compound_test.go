package search

import "testing"

// TestCompoundWords holds a request that writes as two words what the
// tools write as one: on the real Kubernetes plugin's catalog, config maps
// are listed by list_resources, whose description says "configmaps".
func TestCompoundWords(t *testing.T) {
	ix := realCatalog(t, "k8s")
	for _, q := range []string{"list the config maps in a namespace", "list configmaps", "show config maps"} {
		got := ids(t, ix, Query{Text: q, Plugin: "k8s", Limit: 5})
		if len(got) == 0 || got[0] != "x_k8s_list_resources" {
			t.Errorf("Search(%q) = %v, want x_k8s_list_resources first", q, got)
		}
	}
}

func TestSplitCompound(t *testing.T) {
	ix := NewIndex()
	ix.Replace("p", []Doc{
		{ID: "a", Description: "read the config of a file system"},
		{ID: "b", Description: "list configmaps"},
	})
	sn := ix.snap.Load()
	for _, tt := range []struct {
		word, left, right string
		ok                bool
	}{
		{"filesystem", "file", "system", true},
		{"configfile", "config", "file", true},
		{"configs", "", "", false}, // a part of fewer than three letters
		{"readx", "", "", false},
	} {
		l, r, ok := sn.splitCompound(tt.word)
		if l != tt.left || r != tt.right || ok != tt.ok {
			t.Errorf("splitCompound(%q) = %q, %q, %v; want %q, %q, %v", tt.word, l, r, ok, tt.left, tt.right, tt.ok)
		}
	}
	if j, ok := sn.joinedTerm("config", "maps"); !ok || j != stem("configmaps") {
		t.Errorf("joinedTerm(config, maps) = %q, %v; want %q", j, ok, stem("configmaps"))
	}
}

// TestKnownWordsAreNotSplit: a word the tools use ("workspace") is that
// word, not two others that happen to be indexed too.
func TestKnownWordsAreNotSplit(t *testing.T) {
	ix := NewIndex()
	ix.Replace("p", []Doc{
		{ID: "x_p_members", Name: "members", Description: "List the members of a workspace."},
		{ID: "x_p_orders", Name: "orders", Description: "List work orders by office space."},
	})
	if got := ids(t, ix, Query{Text: "workspace", Limit: 5}); len(got) != 1 || got[0] != "x_p_members" {
		t.Errorf("Search(workspace) = %v, want only x_p_members", got)
	}
	if got := ids(t, ix, Query{Text: "workorders", Limit: 5}); len(got) == 0 || got[0] != "x_p_orders" {
		t.Errorf("Search(workorders) = %v, want x_p_orders first", got)
	}
}
