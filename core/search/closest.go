package search

import (
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
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
	wantMask := runeMask(string(want))
	// within is the edit distance of c (with character set mask) from the
	// wanted name, or more than bound. The length differs by at most one
	// per edit and the character set by at most two members, which rules
	// most names out before the distance table is built.
	within := func(c string, mask uint64, bound int) int {
		if d := len(want) - utf8.RuneCountInString(c); d > bound || -d > bound {
			return bound + 1
		}
		if mask == 0 {
			mask = runeMask(c)
		}
		if (bits.OnesCount64(wantMask^mask)+1)/2 > bound {
			return bound + 1
		}
		return buf.distance(want, c, bound)
	}
	for _, s := range ix.snap.Load().segs {
		for i, d := range s.docs {
			bound := worst()
			id := s.lowerID[i]
			dist := within(id, s.idMask[i], bound)
			if d.Name != "" {
				dist = min(dist, within(strings.ToLower(d.Name), s.names[i].mask, bound))
			}
			// The ID without its "x_<plugin>_" part, for a name given with
			// part of the prefix missing.
			if j := strings.IndexByte(id, '_'); j >= 0 {
				dist = min(dist, within(id[j+1:], 0, bound))
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
// (insertions, deletions, substitutions, swaps of neighbours), or maxD+1 as
// soon as the distance is known to exceed maxD. Only the band of cells
// within maxD of the diagonal is computed; cells outside it hold maxD+1.
func (o *osaBuf) distance(a []rune, bs string, maxD int) int {
	// The lengths alone often rule a word out, before any copying.
	if d := len(a) - utf8.RuneCountInString(bs); d > maxD || -d > maxD {
		return maxD + 1
	}
	o.b = o.b[:0]
	for _, r := range bs {
		o.b = append(o.b, r)
	}
	b := o.b
	n := len(b) + 1
	o.prev2 = grow(o.prev2, n+1)
	o.prev = grow(o.prev, n+1)
	o.c = grow(o.c, n+1)
	for j := range n {
		o.prev[j] = j
	}
	far := maxD + 1
	o.prev[n] = far
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-maxD), min(n-1, i+maxD)
		if lo == 1 {
			o.c[0] = i
		} else {
			o.c[lo-1] = far
		}
		rowMin := o.c[lo-1]
		for j := lo; j <= hi; j++ {
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
		o.c[hi+1] = far // what the next row reads just past this band
		if rowMin > maxD {
			return far
		}
		o.prev2, o.prev, o.c = o.prev, o.c, o.prev2
	}
	return min(o.prev[n-1], far)
}

func grow(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
