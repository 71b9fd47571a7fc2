package search

// Most tools are named for one of a few operations on a kind of thing, the
// standard methods of resource-oriented APIs (Google's API Improvement
// Proposals AIP-131 to AIP-135: Get, List, Create, Update, Delete; the same
// classes as HTTP's GET, POST, PUT/PATCH and DELETE in RFC 9110) and the
// common custom methods beside them. A request says the operation in
// everyday words that neither thesaurus relates to the method's own
// ("revoke a secret", "change the labels", "make a folder"). verbClasses
// lists, per method, the words tool names use for it first, then everyday
// verbs that ask for that operation on a resource.
var verbClasses = []struct {
	heads, members []string
	// mutates: the method changes what is stored (Create, Update,
	// Delete, Move, Undelete); the others read it.
	mutates bool
}{
	// AIP-133 Create: a new resource.
	{[]string{"create", "add"}, []string{"make", "new", "build", "register", "insert", "establish", "spawn", "provision", "open"}, true},
	// AIP-131 Get: one resource as it is.
	{[]string{"get", "read"}, []string{"open", "view", "show", "fetch", "retrieve", "inspect", "load", "display", "see"}, false},
	// AIP-132 List: the resources of a collection.
	{[]string{"list"}, []string{"enumerate", "inventory", "browse"}, false},
	// AIP-134 Update: change fields of an existing resource.
	{[]string{"update", "edit"}, []string{"change", "modify", "alter", "amend", "adjust", "rename", "patch", "tweak", "replace"}, true},
	// AIP-135 Delete: the resource is gone.
	{[]string{"delete", "remove"}, []string{"revoke", "erase", "destroy", "drop", "purge", "discard", "unset", "uninstall", "rescind", "withdraw", "stop", "cancel", "forget", "kill", "terminate"}, true},
	// The common custom methods of Google's Cloud API Design Guide
	// ("Custom methods"): Search, where List's semantics do not fit;
	// Move; Undelete.
	{[]string{"search", "find"}, []string{"look", "locate", "discover", "seek", "lookup", "hunt"}, false},
	{[]string{"move"}, []string{"relocate", "transfer"}, true},
	{[]string{"restore", "undelete"}, []string{"recover", "revive", "unarchive"}, true},
}

// verbClassWeight is what a match on the method's own word is worth next
// to the request's verb: as much as a WordNet relative.
const verbClassWeight = 0.35

// verbHeadsOf maps a stemmed verb to the stemmed words tool names use for
// its method (itself excluded).
var verbHeadsOf = buildVerbClasses()

func buildVerbClasses() map[string][]string {
	m := map[string][]string{}
	for _, c := range verbClasses {
		for _, w := range append(append([]string(nil), c.heads...), c.members...) {
			sw := stem(w)
			for _, h := range c.heads {
				if sh := stem(h); sh != sw && !contains(m[sw], sh) {
					m[sw] = append(m[sw], sh)
				}
			}
		}
	}
	return m
}

// methodOf maps the stemmed words tool names use for a standard method to
// its index in verbClasses.
var methodOf = func() map[string]int {
	m := map[string]int{}
	for i, c := range verbClasses {
		for _, h := range c.heads {
			m[stem(h)] = i
		}
	}
	return m
}()

// methodSet is a set of methods, a bit per index in verbClasses.
type methodSet uint16

// listMethod is List's index in verbClasses.
const listMethod = 2

// mutatingMethods are the methods that change what is stored.
var mutatingMethods = func() methodSet {
	var m methodSet
	for i, c := range verbClasses {
		if c.mutates {
			m |= 1 << i
		}
	}
	return m
}()

// updateMethod is Update's index in verbClasses.
const updateMethod = 3

// setterNames are words tool names use for writing a value whatever was
// there (HTTP's PUT, RFC 9110 9.3.4: create or replace; a setter). They
// change what is stored, but a request's "put" or "set" says too little of
// which method it asks for to match them to one.
var setterNames = setOf("put", "set")

// methodsAsked returns the methods the stemmed request word s asks for:
// its own, when it is a method's word, and those of the class it belongs to.
func methodsAsked(s string) methodSet {
	var m methodSet
	if c, ok := methodOf[s]; ok {
		m |= 1 << c
	}
	for _, h := range verbHeadsOf[s] {
		m |= 1 << methodOf[h]
	}
	return m
}
