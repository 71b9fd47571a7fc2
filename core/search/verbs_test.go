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

// A request's own words say which methods it asks for, and whether any of
// them changes what is stored.
func TestMethodsAsked(t *testing.T) {
	if verbClasses[listMethod].heads[0] != "list" {
		t.Fatalf("listMethod %d is %v, want List's class", listMethod, verbClasses[listMethod].heads)
	}
	for _, tc := range []struct {
		word     string
		mutating bool
	}{{"revoke", true}, {"make", true}, {"rename", true}, {"relocate", true}, {"recover", true},
		{"show", false}, {"list", false}, {"find", false}, {"browse", false}, {"databases", false}} {
		m := methodsAsked(stem(tc.word))
		if got := m&mutatingMethods != 0; got != tc.mutating {
			t.Errorf("methodsAsked(%q) = %b: mutating %v, want %v", tc.word, m, got, tc.mutating)
		}
	}
	if m := methodsAsked(stem("enumerate")); m != 1<<listMethod {
		t.Errorf("methodsAsked(enumerate) = %b, want List alone", m)
	}
}

func TestIsPlural(t *testing.T) {
	for w, want := range map[string]bool{
		"databases": true, "queues": true, "secrets": true, "namespaces": true, "policies": true,
		"boxes": true, "bindings": true,
		"database": false, "queue": false, "status": false, "class": false, "access": false,
		"has": false, "bus": false, "is": false, "Secrets": false,
	} {
		if got := isPlural(w); got != want {
			t.Errorf("isPlural(%q) = %v, want %v", w, got, want)
		}
	}
}

// A request that asks for no method that changes things asks to read: the
// sibling whose name says only such methods does not come first, and a
// request for things in the plural finds the one that lists them.
func TestReadingRequest(t *testing.T) {
	ix := NewIndex()
	ix.Replace("cf", []Doc{
		{ID: "x_cf_d1_delete_database", Name: "d1_delete_database", Description: "Delete a D1 database"},
		{ID: "x_cf_d1_create_database", Name: "d1_create_database", Description: "Create a D1 database"},
		{ID: "x_cf_d1_list_databases", Name: "d1_list_databases", Description: "List the D1 databases of the account"},
		{ID: "x_cf_queue_get", Name: "queue_get", Description: "Get a queue by its id"},
		{ID: "x_cf_queue_list", Name: "queue_list", Description: "List the queues of the account"},
	})
	sn := ix.snap.Load()
	feats := func(q, id string) [numFeatures]float64 {
		d, ok := ix.Get(id)
		if !ok {
			t.Fatalf("no tool %s", id)
		}
		pq := sn.parseQuery(q)
		c := candidate{doc: d, fused: 1}
		var x [numFeatures]float64
		sn.features(pq, sn.viewQuery(pq), &c, 0, &c, &x)
		return x
	}
	for _, tc := range []struct {
		q, id            string
		mutates, plurals float64
	}{
		{"what d1 databases do I have", "x_cf_d1_delete_database", 1, 0},
		{"what d1 databases do I have", "x_cf_d1_list_databases", 0, 1},
		{"drop the d1 database", "x_cf_d1_delete_database", 0, 0},
		{"make a d1 database", "x_cf_d1_delete_database", 0, 0},
		{"show all my queues", "x_cf_queue_list", 0, 1},
		{"show all my queues", "x_cf_queue_get", 0, 0},
		{"show the queue named billing", "x_cf_queue_list", 0, 0},
	} {
		x := feats(tc.q, tc.id)
		if x[featMutatesUnasked] != tc.mutates || x[featPluralList] != tc.plurals {
			t.Errorf("%q, %s: mutates_unasked %v plural_list %v, want %v and %v",
				tc.q, tc.id, x[featMutatesUnasked], x[featPluralList], tc.mutates, tc.plurals)
		}
	}
}

func TestMethodIndexes(t *testing.T) {
	if verbClasses[updateMethod].heads[0] != "update" || !verbClasses[updateMethod].mutates {
		t.Errorf("updateMethod %d is %v, want Update's class", updateMethod, verbClasses[updateMethod].heads)
	}
	for w := range setterNames {
		if stem(w) != w {
			t.Errorf("setter name %q is not its own stem", w)
		}
	}
}
