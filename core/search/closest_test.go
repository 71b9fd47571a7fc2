package search

import (
	"math/rand/v2"
	"testing"
)

// osaReference is the textbook full-table optimal-string-alignment
// distance, the yardstick for the banded, early-exit version.
func osaReference(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

func TestDistanceMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	word := func() []rune {
		w := make([]rune, r.IntN(9))
		for i := range w {
			w[i] = []rune("abé")[r.IntN(3)]
		}
		return w
	}
	var buf osaBuf
	for range 100000 {
		a, b, maxD := word(), word(), r.IntN(5)
		want := min(osaReference(a, b), maxD+1)
		if got := buf.distance(a, string(b), maxD); got != want {
			t.Fatalf("distance(%q, %q, %d) = %d, want %d", string(a), string(b), maxD, got, want)
		}
	}
}
