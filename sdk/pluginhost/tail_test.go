package pluginhost

import (
	"fmt"
	"slices"
	"testing"
)

// A crash report quotes what the plugin wrote during the call, not a line
// from an earlier call that the tail still holds.
func TestTailSince(t *testing.T) {
	tl := newTail(3)
	fmt.Fprintf(tl, "{\"@level\":\"error\",\"@message\":\"panic in tool\"}\n")
	m := tl.mark()
	if got := tl.since(m); len(got) != 0 {
		t.Errorf("since a mark at the end = %q, want nothing", got)
	}
	fmt.Fprintf(tl, "a\nb\n")
	if got := tl.since(m); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("since = %q, want the two lines after the mark", got)
	}
	fmt.Fprintf(tl, "c\nd\ne\n")
	if got := tl.since(m); !slices.Equal(got, []string{"c", "d", "e"}) {
		t.Errorf("since, more lines than kept = %q, want the kept ones", got)
	}
	if got := tl.since(0); !slices.Equal(got, tl.Lines()) {
		t.Errorf("since 0 = %q, want every kept line %q", got, tl.Lines())
	}
}
