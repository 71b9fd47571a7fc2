package search

// Words people use for the same need in tool catalogs: a query says
// "remove", the tool says "delete". Each group is symmetric; a word may sit in
// several groups. Kept small and domain-specific on purpose: a broad
// thesaurus would blur the ranking more than it helps.
var synonymGroups = [][]string{
	{"list", "get", "show", "display", "fetch", "find", "retrieve", "view", "enumerate"},
	{"delete", "remove", "destroy", "erase", "drop", "purge", "del", "forget"},
	{"create", "add", "new", "make", "insert", "generate"},
	{"update", "edit", "modify", "change", "patch", "alter"},
	{"write", "save", "store", "overwrite", "put"},
	{"read", "open", "load", "view"},
	{"get", "read", "fetch", "retrieve", "load"},
	{"move", "rename", "mv"},
	{"copy", "duplicate", "clone"},
	{"query", "search", "find", "lookup", "look", "locate", "grep"},
	{"pod", "container"},
	{"metric", "series", "timeseries", "measurement"},
	{"file", "path", "document"},
	{"dir", "directory", "folder"},
	{"log", "logs", "logging"},
	{"alert", "alarm", "alerting"},
	{"k8s", "kubernetes", "kube"},
	{"prom", "prometheus"},
	{"image", "picture", "img", "photo", "logo"},
	{"env", "environment"},
	{"config", "configuration", "settings", "setting"},
	{"compress", "zip", "gzip", "archive"},
	{"info", "information", "metadata", "details", "stat", "stats"},
	{"size", "sizes", "bytes"},
	{"tree", "hierarchy", "nested", "recursive"},
	{"observation", "fact", "note"},
	{"entity", "node"},
	{"relation", "relationship", "link", "edge", "connection"},
	{"think", "thinking", "thought", "reason", "reasoning"},
	{"start", "run", "launch", "trigger", "begin", "kick"},
	{"stop", "halt", "kill", "terminate"},
	{"error", "failure", "fail"},
	{"label", "tag"},
	{"deployment", "deploy", "rollout"},
	{"service", "svc"},
	{"namespace", "ns"},
	{"secret", "credential", "password"},
	{"user", "account"},
	{"message", "msg"},
	{"number", "numbers", "integer"},
	{"multiple", "several", "many", "batch", "bulk"},
	{"sum", "total", "addition"},
	{"echo", "repeat", "parrot"},
	{"toggle", "switch", "enable", "disable"},
	{"memory", "knowledge", "remember"},
}

// expansions are one-way abbreviations and jargon that stand for several
// words at once ("promql" is a Prometheus query).
var expansions = map[string][]string{
	"promql":  {"prometheus", "query"},
	"ls":      {"list", "directory"},
	"cat":     {"read", "file"},
	"mkdir":   {"create", "directory"},
	"rm":      {"delete", "file"},
	"cp":      {"copy", "file"},
	"ps":      {"list", "process"},
	"pwd":     {"directory", "current"},
	"kubectl": {"kubernetes"},
	"llm":     {"sampling", "model"},
	"ai":      {"sampling", "model"},
}

// genericVerbs start most tool names; a query word among them says little
// about which tool is meant, so it counts less than the nouns around it.
var genericVerbs = setOf("get", "list", "show", "display", "fetch", "retrieve", "return", "view")

// synonymsOf maps a stemmed term to its stemmed synonyms (itself excluded).
// expansionsOf maps a stemmed abbreviation to the stemmed words it stands for.
var synonymsOf, expansionsOf = buildSynonyms()

func buildSynonyms() (map[string][]string, map[string][]string) {
	syn := map[string][]string{}
	for _, g := range synonymGroups {
		for _, a := range g {
			sa := stem(a)
			for _, b := range g {
				if sb := stem(b); sb != sa && !contains(syn[sa], sb) {
					syn[sa] = append(syn[sa], sb)
				}
			}
		}
	}
	exp := map[string][]string{}
	for k, words := range expansions {
		for _, w := range words {
			exp[stem(k)] = append(exp[stem(k)], stem(w))
		}
	}
	return syn, exp
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
