package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/core/search"
)

// -without zeroes the named features in every sample, so a fit leaves their
// weights at 0, and names the features when it does not know one.
func TestDropFeatures(t *testing.T) {
	nf := len(search.RerankFeatureNames)
	sample := func() search.RerankSample {
		x := make([]float64, nf)
		for i := range x {
			x[i] = 1
		}
		y := slices.Clone(x)
		for i := range y {
			y[i] = 0.5
		}
		return search.RerankSample{Query: "q", Features: [][]float64{x, y}, Right: []bool{true, false}}
	}
	a, b := []search.RerankSample{sample()}, []search.RerankSample{sample()}
	if err := dropFeatures("fuzzy, other_method", a, b); err != nil {
		t.Fatal(err)
	}
	fuzzy, other := slices.Index(search.RerankFeatureNames, "fuzzy"), slices.Index(search.RerankFeatureNames, "other_method")
	for _, set := range [][]search.RerankSample{a, b} {
		for _, x := range set[0].Features {
			for f, v := range x {
				if dropped := f == fuzzy || f == other; dropped && v != 0 || !dropped && v == 0 {
					t.Errorf("feature %s = %v after dropping fuzzy and other_method", search.RerankFeatureNames[f], v)
				}
			}
		}
	}
	w := fit(a, 0.01)
	if w[fuzzy] != 0 || w[other] != 0 {
		t.Errorf("fit gave dropped features weights %v and %v, want 0", w[fuzzy], w[other])
	}
	if w[0] <= 0 {
		t.Errorf("fit gave the kept feature %s weight %v, want it positive: it is higher on the right answer", search.RerankFeatureNames[0], w[0])
	}
	err := dropFeatures("fuzzy,nosuch", a)
	if err == nil || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), "other_method") {
		t.Errorf("dropFeatures(nosuch) = %v, want an error naming the unknown feature and the known ones", err)
	}
}
