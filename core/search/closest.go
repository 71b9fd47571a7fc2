package search

import (
	"slices"
	"strings"
)

// Closest returns up to n tool IDs nearest to an unknown name, nearest
// first: typos ("x_everything_ecoh"), a missing prefix ("echo",
// "everything_echo") or a different case all find their tool. Names too far
// from everything are not suggested.
func (ix *Index) Closest(name string, n int) []string {
	if n <= 0 || name == "" {
		return nil
	}
	want := []rune(strings.ToLower(name))
	// Beyond this many edits a suggestion is more confusing than helpful.
	limit := max(2, len(want)/3)

	type near struct {
		id   string
		dist int
	}
	var best []near
	var buf osaBuf
	worst := func() int {
		if len(best) < n {
			return limit
		}
		return best[len(best)-1].dist
	}
	for _, s := range ix.snap.Load().segs {
		for i, d := range s.docs {
			bound := worst()
			dist := buf.distance(want, s.lowerID[i], bound)
			if d.Name != "" {
				dist = min(dist, buf.distance(want, strings.ToLower(d.Name), bound))
			}
			// The ID without its "x_<plugin>_" part, for a name given with
			// part of the prefix missing.
			if j := strings.Index(s.lowerID[i], "_"); j >= 0 {
				dist = min(dist, buf.distance(want, s.lowerID[i][j+1:], bound))
			}
			if dist > bound {
				continue
			}
			at, _ := slices.BinarySearchFunc(best, near{d.ID, dist}, func(a, b near) int {
				if a.dist != b.dist {
					return a.dist - b.dist
				}
				return strings.Compare(a.id, b.id)
			})
			if at >= n {
				continue
			}
			best = slices.Insert(best, at, near{d.ID, dist})
			if len(best) > n {
				best = best[:n]
			}
		}
	}
	ids := make([]string, len(best))
	for i, b := range best {
		ids[i] = b.id
	}
	return ids
}

// osaBuf holds the rows of the edit-distance table between calls, so a scan
// over a whole vocabulary does not allocate per word.
type osaBuf struct {
	b              []rune
	prev2, prev, c []int
}

// distance is the optimal-string-alignment edit distance between a and b
// (insertions, deletions, substitutions, swaps of neighbours), or a number
// above maxD as soon as the distance is known to exceed maxD.
func (o *osaBuf) distance(a []rune, bs string, maxD int) int {
	o.b = o.b[:0]
	for _, r := range bs {
		o.b = append(o.b, r)
	}
	b := o.b
	if d := len(a) - len(b); d > maxD || -d > maxD {
		return maxD + 1
	}
	n := len(b) + 1
	o.prev2 = grow(o.prev2, n)
	o.prev = grow(o.prev, n)
	o.c = grow(o.c, n)
	for j := range o.prev {
		o.prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		o.c[0] = i
		rowMin := i
		for j := 1; j < n; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(o.prev[j]+1, o.c[j-1]+1, o.prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, o.prev2[j-2]+1)
			}
			o.c[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > maxD {
			return maxD + 1
		}
		o.prev2, o.prev, o.c = o.prev, o.c, o.prev2
	}
	return o.prev[n-1]
}

func grow(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
