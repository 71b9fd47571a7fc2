package search

import "testing"

// A request's verb that no thesaurus relates to a tool's finds the tool
// whose name says the same standard method, and not its siblings that say
// another one.
func TestVerbAsksForMethod(t *testing.T) {
	ix := NewIndex()
	ix.Replace("cf", []Doc{
		{ID: "x_cf_secret_put", Name: "secret_put", Description: "Put a secret value on a worker"},
		{ID: "x_cf_secret_delete", Name: "secret_delete", Description: "Delete a secret from a worker"},
		{ID: "x_cf_secret_list", Name: "secret_list", Description: "List the secrets of a worker"},
		{ID: "x_cf_label_update", Name: "label_update", Description: "Update the labels of a worker"},
		{ID: "x_cf_label_list", Name: "label_list", Description: "List the labels of a worker"},
		{ID: "x_cf_label_delete", Name: "label_delete", Description: "Delete a label from a worker"},
	})
	for q, want := range map[string]string{
		"revoke a worker secret": "x_cf_secret_delete",
		"change the labels":      "x_cf_label_update",
	} {
		if got := ids(t, ix, Query{Text: q}); len(got) == 0 || got[0] != want {
			t.Errorf("%q ranks %v, want %s first", q, got, want)
		}
	}
}

func TestVerbClasses(t *testing.T) {
	for verb, want := range map[string]string{"revok": "delet", "chang": "updat", "make": "creat", "find": "search"} {
		if !contains(verbHeadsOf[verb], want) {
			t.Errorf("verbHeadsOf[%q] = %v, want it to hold %q", verb, verbHeadsOf[verb], want)
		}
	}
	if got := verbHeadsOf[stem("delete")]; !contains(got, stem("remove")) || contains(got, stem("delete")) {
		t.Errorf("verbHeadsOf[delete] = %v, want remove and not delete itself", got)
	}
}
