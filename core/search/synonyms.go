package search

// abbreviations are the short forms a field writes for its own words. They
// are not in a general thesaurus, and each stands for exactly one thing in
// its field; a query or a tool may use either form. Everything else a word
// may stand for comes from the thesaurus (thesaurus.go).
var abbreviations = [][]string{
	// The Kubernetes project's own numeronym and the "kube" prefix of its
	// components (kube-apiserver, kubectl, kubeconfig).
	{"k8s", "kubernetes", "kube"},
	// kubectl's short resource names, as `kubectl api-resources` lists them.
	{"cm", "configmap"},
	{"ns", "namespace"},
	{"svc", "service"},
	{"deploy", "deployment"},
	{"po", "pod"},
	{"pvc", "persistentvolumeclaim"},
	{"pv", "persistentvolume"},
	{"sts", "statefulset"},
	{"ds", "daemonset"},
	{"rs", "replicaset"},
	{"ing", "ingress"},
	{"sa", "serviceaccount"},
	{"cj", "cronjob"},
	{"crd", "customresourcedefinition"},
	// "prom" is the Prometheus project's short name (the prom/prometheus
	// image, client_golang's promhttp and promauto packages).
	{"prom", "prometheus"},
	// Common abbreviations of programming identifiers and Unix paths
	// (/etc, $HOME/.config, os.Getenv, ...).
	{"dir", "directory"},
	{"env", "environment"},
	{"config", "configuration"},
	{"cfg", "config"},
	{"repo", "repository"},
	{"db", "database"},
	{"msg", "message"},
	{"img", "image"},
	{"info", "information"},
	{"stat", "statistic"},
	{"auth", "authentication"},
	{"tmp", "temporary"},
	{"doc", "document"},
	{"args", "arguments"},
	{"param", "parameter"},
	{"id", "identifier"},
	// GitHub's REST API names organizations "orgs" (/orgs/{org}/repos),
	// as do Sentry's (organization_id_or_slug under /organizations/).
	{"org", "organization"},
}

// expansions are one-way abbreviations and jargon that stand for several
// words at once.
var expansions = map[string][]string{
	// PromQL is the Prometheus Query Language.
	"promql": {"prometheus", "query"},
	// kubectl is the Kubernetes command-line client.
	"kubectl": {"kubernetes"},
	// POSIX utility names stand for what they do to files.
	"ls":    {"list", "directory"},
	"cat":   {"read", "file"},
	"mkdir": {"create", "directory"},
	"rm":    {"delete", "file"},
	"cp":    {"copy", "file"},
	"mv":    {"move", "file"},
	"ps":    {"list", "process"},
	"pwd":   {"current", "directory"},
	// LLM: large language model.
	"llm": {"language", "model"},
	// GitHub's docs write "PR" for a pull request, GitLab's "MR" for a
	// merge request.
	"pr": {"pull", "request"},
	"mr": {"merge", "request"},
	// git-stage(1): "This is a synonym for git-add(1)"; staging a change is
	// adding it to the index.
	"stage": {"add"},
}

// genericVerbs start most tool names; a query word among them says little
// about which tool is meant, so it counts less than the nouns around it.
var genericVerbs = setOf("get", "list", "show", "display", "fetch", "retrieve", "return", "view")

// synonymsOf maps a stemmed term to its stemmed abbreviations or full forms
// (itself excluded). expansionsOf maps a stemmed abbreviation to the stemmed
// words it stands for.
var synonymsOf, expansionsOf = buildSynonyms()

func buildSynonyms() (map[string][]string, map[string][]string) {
	syn := map[string][]string{}
	for _, g := range abbreviations {
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
