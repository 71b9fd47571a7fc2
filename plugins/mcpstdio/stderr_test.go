package mcpstdio

import (
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// A server that writes 20 MB to stderr without a newline costs the plugin
// one bounded line, not 20 MB: the line is cut and the next one kept.
func TestOverlongStderrLineIsBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := startProcess(&config{path: "/bin/sh", command: "sh", args: []string{"-c",
		`head -c 20000000 /dev/zero | tr '\0' x >&2; echo >&2; echo after >&2`}}, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	<-p.exited
	runtime.ReadMemStats(&after)
	tail := p.exitError().Stderr
	if len(tail) != 2 || !strings.HasPrefix(tail[0], "xxxx") || len(tail[0]) > stderrLineLimit || tail[1] != "after" {
		short := make([]string, len(tail))
		for i, l := range tail {
			short[i] = clip(l)
		}
		t.Errorf("stderr tail %q; want the long line cut, then \"after\"", short)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 5<<20 {
		t.Errorf("reading the 20 MB line allocated %d bytes", grew)
	}
}
