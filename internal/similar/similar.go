// Package similar finds the name an operator probably meant, for the "did
// you mean" of config and scenario errors.
package similar

import "github.com/agext/levenshtein"

// Closest returns the option closest to given by edit distance, or "" when
// none is close enough to be a likely typo.
func Closest(given string, options []string) string {
	best, bestDist := "", -1
	for _, o := range options {
		d := levenshtein.Distance(given, o, nil)
		if bestDist < 0 || d < bestDist {
			best, bestDist = o, d
		}
	}
	if bestDist >= 0 && (bestDist < 3 || bestDist <= len(given)/3) {
		return best
	}
	return ""
}
