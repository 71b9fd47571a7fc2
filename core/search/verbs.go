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
}{
	// AIP-133 Create: a new resource.
	{[]string{"create", "add"}, []string{"make", "new", "build", "register", "insert", "establish", "spawn", "provision", "open"}},
	// AIP-131 Get: one resource as it is.
	{[]string{"get", "read"}, []string{"open", "view", "show", "fetch", "retrieve", "inspect", "load", "display", "see"}},
	// AIP-132 List: the resources of a collection.
	{[]string{"list"}, []string{"enumerate", "inventory", "browse"}},
	// AIP-134 Update: change fields of an existing resource.
	{[]string{"update", "edit"}, []string{"change", "modify", "alter", "amend", "adjust", "rename", "patch", "tweak", "replace"}},
	// AIP-135 Delete: the resource is gone.
	{[]string{"delete", "remove"}, []string{"revoke", "erase", "destroy", "drop", "purge", "discard", "unset", "uninstall", "rescind", "withdraw", "stop", "cancel", "forget", "kill", "terminate"}},
	// The common custom methods of Google's Cloud API Design Guide
	// ("Custom methods"): Search, where List's semantics do not fit;
	// Move; Undelete.
	{[]string{"search", "find"}, []string{"look", "locate", "discover", "seek", "lookup", "hunt"}},
	{[]string{"move"}, []string{"relocate", "transfer"}},
	{[]string{"restore", "undelete"}, []string{"recover", "revive", "unarchive"}},
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
