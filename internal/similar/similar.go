// Package similar finds the name an operator probably meant, for the "did
// you mean" of config and scenario errors.
package similar

import "github.com/agext/levenshtein"

// Closest returns the option closest to given by edit distance, or "" when
// none is close enough to be a likely typo. An option whose length differs
// from given's by more than a typo allows is passed over without computing
// the distance, which grows with the product of the lengths: a name of
// megabytes from a request costs a length comparison per option.
func Closest(given string, options []string) string {
	allowed := max(2, len(given)/3)
	best, bestDist := "", -1
	for _, o := range options {
		if len(given)-len(o) > allowed || len(o)-len(given) > allowed {
			continue
		}
		d := levenshtein.Distance(given, o, nil)
		if bestDist < 0 || d < bestDist {
			best, bestDist = o, d
		}
	}
	if bestDist >= 0 && bestDist <= allowed {
		return best
	}
	return ""
}
