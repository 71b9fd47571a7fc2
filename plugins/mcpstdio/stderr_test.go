package mcpstdio

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

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
			short[i] = clipLine(l)
		}
		t.Errorf("stderr tail %q; want the long line cut, then \"after\"", short)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 5<<20 {
		t.Errorf("reading the 20 MB line allocated %d bytes", grew)
	}
}

// A long line is cut on a character boundary: a cut inside one would make
// the log line, and the crash report quoting it, text gRPC refuses.
func TestClipLineKeepsUTF8(t *testing.T) {
	for _, pad := range []int{0, 1} {
		line := strings.Repeat("x", pad) + strings.Repeat("é", logLineMax)
		if got := clipLine(line); !utf8.ValidString(got) || len(got) > logLineMax+len("…") {
			t.Errorf("clipLine of %d bytes = %d bytes, valid UTF-8: %v", len(line), len(got), utf8.ValidString(got))
		}
	}
}
