package search

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used. The benchmarks report it per
// operation next to wall time, because on a shared machine wall time
// mostly measures the neighbours.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// catalogDomain is a family of plugins whose tools share nouns and wording,
// like several Kubernetes clusters or several databases behind one gateway.
type catalogDomain struct {
	plugin string
	nouns  []string
	words  []string // domain words sprinkled through descriptions
}

var (
	benchVerbs = []string{"get", "list", "create", "delete", "update", "describe", "watch",
		"patch", "restart", "scale", "search", "query", "export", "import", "archive", "sync",
		"validate", "rollback", "enable", "disable", "count", "read", "write", "move", "copy",
		"tag", "approve", "close", "open", "assign"}
	benchQualifiers = []string{"", "", "", "", "by_id", "by_name", "for_namespace", "in_project",
		"with_labels", "batch", "async", "summary", "history", "v2", "all"}
	benchDomains = []catalogDomain{
		{"k8s", strs("pod deployment service node namespace secret config_map ingress job cron_job stateful_set daemon_set replica_set event log container volume persistent_volume_claim role role_binding service_account endpoint network_policy"),
			strs("cluster kubernetes workload controller kubelet manifest label selector annotation rollout replica scheduler")},
		{"prom", strs("metric series label alert rule target query_range instant_query exemplar recording_rule alertmanager silence scrape_config tsdb_status"),
			strs("prometheus promql time series sample retention scrape evaluation threshold histogram counter gauge")},
		{"git", strs("repository branch commit pull_request issue tag release workflow run artifact comment review file blob tree webhook collaborator"),
			strs("github git merge rebase diff patch upstream fork checkout history author")},
		{"db", strs("table row column index schema view trigger procedure backup snapshot replica user grant database connection transaction"),
			strs("sql postgres mysql query migration constraint foreign key primary cursor isolation")},
		{"cloud", strs("instance bucket object volume snapshot network subnet firewall load_balancer dns_record certificate key_pair image region quota"),
			strs("aws gcp azure compute storage vpc zone autoscaling billing iam policy")},
		{"tickets", strs("ticket project board sprint epic story comment attachment user team label milestone worklog"),
			strs("jira backlog assignee priority status workflow kanban estimate resolution reporter")},
		{"files", strs("file directory symlink archive permission owner checksum mount"),
			strs("filesystem path folder read write glob recursive size timestamp encoding")},
		{"chat", strs("message channel thread reaction user group file reminder emoji bookmark"),
			strs("slack chat notification mention conversation workspace direct post")},
	}
	benchFiller = strs("the a of for from to with and current given specified selected optional " +
		"detailed returns result results matching provided existing new all single multiple " +
		"using when if only within between before after each including whether resource item " +
		"entry value values field fields format json yaml output input request response limit " +
		"page token filter sort order id name identifier status state time date duration")
	benchParams = []Param{
		{Name: "namespace", Description: "Namespace of the resource"}, {Name: "name", Description: "Name of the resource"},
		{Name: "id", Description: "Identifier of the item"}, {Name: "limit", Description: "Maximum number of results"},
		{Name: "page_token", Description: "Token of the page to return"}, {Name: "query", Description: "Filter expression"},
		{Name: "labels", Description: "Label selector to match"}, {Name: "since", Description: "Start of the time range"},
		{Name: "until", Description: "End of the time range"}, {Name: "format", Description: "Output format: json or yaml"},
		{Name: "dry_run", Description: "Validate the request without applying it"}, {Name: "force", Description: "Skip confirmation"},
		{Name: "project", Description: "Project the item belongs to"}, {Name: "path", Description: "Path of the file"},
	}
)

func strs(s string) []string { return strings.Fields(s) }

// syntheticCatalog returns n plausible tools in plugins of perPlugin tools,
// deterministically. Plugins of one domain share names, as real
// deployments of one server type do.
func syntheticCatalog(n, perPlugin int) map[string][]Doc {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	out := map[string][]Doc{}
	for p := 0; p*perPlugin < n; p++ {
		dom := benchDomains[p%len(benchDomains)]
		plugin := fmt.Sprintf("%s-%d", dom.plugin, p/len(benchDomains))
		size := min(perPlugin, n-p*perPlugin)
		seen := map[string]bool{}
		docs := make([]Doc, 0, size)
		for len(docs) < size {
			verb := benchVerbs[r.IntN(len(benchVerbs))]
			noun := dom.nouns[r.IntN(len(dom.nouns))]
			if r.IntN(3) == 0 {
				noun += "_" + dom.nouns[r.IntN(len(dom.nouns))]
			}
			name := verb + "_" + noun
			if q := benchQualifiers[r.IntN(len(benchQualifiers))]; q != "" {
				name += "_" + q
			}
			if seen[name] {
				name = fmt.Sprintf("%s_%d", name, len(docs))
			}
			seen[name] = true
			var desc strings.Builder
			fmt.Fprintf(&desc, "%s %s %s.", strings.ToUpper(verb[:1])+verb[1:], strings.ReplaceAll(noun, "_", " "), dom.words[r.IntN(len(dom.words))])
			for i := 4 + r.IntN(20); i > 0; i-- {
				w := benchFiller[r.IntN(len(benchFiller))]
				if r.IntN(4) == 0 {
					w = dom.words[r.IntN(len(dom.words))]
				}
				desc.WriteString(" " + w)
			}
			params := make([]Param, 1+r.IntN(4))
			for i := range params {
				params[i] = benchParams[r.IntN(len(benchParams))]
			}
			labels := map[string]string{"domain": dom.plugin}
			if verb == "get" || verb == "list" || verb == "describe" || verb == "search" {
				labels["readOnly"] = "true"
			}
			docs = append(docs, Doc{ID: "x_" + plugin + "_" + name, Plugin: plugin, Name: name,
				Description: desc.String(), Params: params, Labels: labels})
		}
		out[plugin] = docs
	}
	return out
}

func buildIndex(catalog map[string][]Doc) *Index {
	ix := NewIndex()
	for p, docs := range catalog {
		ix.Replace(p, docs)
	}
	return ix
}

var benchQueries = []string{
	"list pods", "lsit pods in namespace", "k8s logs", "promql", "prometheus query range",
	"delete user account", "get", "restart deployment", "scale stateful set", "silence alert",
	"create pull request", "merge branch", "backup database", "firewall rules for subnet",
	"close ticket", "send message to channel", "read file", "dir tree", "kubernets secrets",
	"find issues assigned to me", "export metrics history", "rollback release", "s3 bucket objects",
}

func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			ix := buildIndex(syntheticCatalog(n, min(1000, n/4)))
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime(b)
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := ix.Search(Query{Text: benchQueries[i%len(benchQueries)], Limit: 5}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkReplacePlugin swaps one plugin of 1,000 tools in a catalog of
// 10,000, the cost a plugin's tools/list_changed puts on the gateway.
func BenchmarkReplacePlugin(b *testing.B) {
	catalog := syntheticCatalog(10_000, 1000)
	ix := buildIndex(catalog)
	docs := catalog["k8s-0"]
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := 0; i < b.N; i++ {
		ix.Replace("k8s-0", docs)
	}
	b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkIndexMemory reports the heap an index holds per 10,000 tools,
// beyond the tool strings themselves.
func BenchmarkIndexMemory(b *testing.B) {
	catalog := syntheticCatalog(100_000, 1000)
	var ix *Index
	var perTenK float64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ix = buildIndex(catalog)
		runtime.GC()
		runtime.ReadMemStats(&after)
		perTenK = float64(after.HeapAlloc-before.HeapAlloc) / float64(ix.Len()) * 10_000
	}
	runtime.KeepAlive(ix)
	b.ReportMetric(perTenK, "bytes/10k-tools")
}

// BenchmarkClosest is the unknown-name path of call_tool: suggestions for a
// misspelt tool name in a catalog of 100,000 tools.
func BenchmarkClosest(b *testing.B) {
	ix := buildIndex(syntheticCatalog(100_000, 1000))
	names := []string{"x_k8s-0_lsit_pods", "list_pod", "x_prom-3_querry_range", "nothing_like_it"}
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := 0; i < b.N; i++ {
		ix.Closest(names[i%len(names)], 3)
	}
	b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
