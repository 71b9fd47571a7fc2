package search

// compoundWeight is what a match through a compound's parts, or through
// two words written as one, is worth next to the word as typed.
const compoundWeight = 0.7

// splitCompound returns the stems of the two parts of word when word is two
// words of the index written as one ("configmaps" for "config" and "maps",
// "filesystem"), or nothing. Identifiers in camelCase, snake_case and
// kebab-case are already split by Tokenize; this finds the joins that leave
// no trace. Each part has at least three letters, so the split is not a
// stray prefix or suffix; the longest known left part wins.
func (sn *snapshot) splitCompound(word string) (string, string, bool) {
	if len(word) < 6 || !isASCIILower(word) {
		return "", "", false
	}
	for i := len(word) - 3; i >= 3; i-- {
		left, right := stem(word[:i]), stem(word[i:])
		if sn.df[left] > 0 && sn.df[right] > 0 {
			return left, right, true
		}
	}
	return "", "", false
}

// joinedTerm returns the stem of two neighbouring query words written as
// one ("config maps" for "configmaps") when the index knows it.
func (sn *snapshot) joinedTerm(a, b string) (string, bool) {
	if !isASCIILower(a) || !isASCIILower(b) {
		return "", false
	}
	j := stem(a + b)
	return j, sn.df[j] > 0
}
