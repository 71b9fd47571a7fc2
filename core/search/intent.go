package search

import (
	"regexp"
	"slices"
	"strings"
)

// A request often carries the task's arguments, not only its words: a file
// name, a URL, numbers. Their letters would rank tools that happen to share
// them ("report" in "summarise report.pdf"); what they say is the kind of
// thing the tool must take. rewriteQuery replaces each by that kind.
var (
	urlRe = regexp.MustCompile(`\b(?:https?|ftp|file)://\S+`)
	// A path has a slash between word characters, or starts at ~/ ./ ../ or /.
	pathRe = regexp.MustCompile(`(?:^|\s)(?:~|\.{1,2})?/[\w.~/-]*|\b[\w.-]+/[\w./-]+`)
	// A file name is a word, a dot and an extension of letters (and digits
	// after the first letter); "e.g." or "v1.2" are not.
	fileRe = regexp.MustCompile(`\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b`)
	// An operator between two numbers is arithmetic, not punctuation.
	opRe     = regexp.MustCompile(`\d\s*([-+*/×÷^])\s*\d`)
	numberRe = regexp.MustCompile(`(?:^|[\s(=,$])[-+]?\d+(?:[.,]\d+)*%?(?:$|[\s),?!])`)
)

// opWords says what an arithmetic operator asks for, in the words tools use.
var opWords = map[string]string{
	"+": "add sum", "-": "subtract difference", "*": "multiply product", "×": "multiply product",
	"/": "divide quotient", "÷": "divide quotient", "^": "power exponent",
}

// arithmeticWords are the names of the operations in speech ("two plus
// three"), which no tool description uses.
var arithmeticWords = map[string]string{
	"plus": "add sum", "minus": "subtract difference", "times": "multiply product",
	"divided": "divide quotient", "squared": "power", "cubed": "power",
}

// asksForSet reports whether a request is a question after a set of
// things ("which buckets exist", "who is on call", "what pods are
// running"), which a tool answers by listing them.
func asksForSet(toks []string) bool {
	if len(toks) < 2 {
		return false
	}
	switch toks[0] {
	case "which", "who":
		return true
	case "what":
		return slices.Contains(toks[1:], "are") || slices.Contains(toks[1:], "exist")
	}
	return false
}

// rewriteQuery replaces URLs, paths, file names and numbers in a request by
// the words of what they are, and arithmetic by the operation's name; a
// question after a set of things asks to list them.
func rewriteQuery(text string) string {
	if asksForSet(Tokenize(text)) {
		text += " list"
	}
	if !strings.ContainsAny(text, "/.0123456789") && !hasArithmeticWord(text) {
		return text
	}
	text = urlRe.ReplaceAllString(text, " url ")
	text = pathRe.ReplaceAllStringFunc(text, func(p string) string {
		if fileRe.MatchString(p[strings.LastIndex(p, "/")+1:]) {
			return " file path "
		}
		return " path "
	})
	text = fileRe.ReplaceAllStringFunc(text, func(f string) string {
		// A known host name ("example.com") reads as a file name too; its
		// extension decides nothing here, the word "file" is what matters.
		return " file "
	})
	var ops []string
	for _, m := range opRe.FindAllStringSubmatch(text, -1) {
		ops = append(ops, opWords[m[1]])
	}
	// numberRe consumes the separators around a number, so neighbouring
	// numbers need two passes.
	for range 2 {
		text = numberRe.ReplaceAllString(text, " number ")
	}
	var extra []string
	for _, w := range strings.Fields(strings.ToLower(text)) {
		if a, ok := arithmeticWords[strings.Trim(w, ",.?!")]; ok {
			extra = append(extra, a)
		}
	}
	return strings.Join(append(append([]string{text}, ops...), extra...), " ")
}

func hasArithmeticWord(text string) bool {
	for _, w := range strings.Fields(strings.ToLower(text)) {
		if _, ok := arithmeticWords[strings.Trim(w, ",.?!")]; ok {
			return true
		}
	}
	return false
}

// mentionedPlugin returns the plugin a request names ("k8s", "prometheus"
// for a plugin named prom) and the request without that word, when exactly
// one plugin is named and something else is asked of it. A plugin named
// with a common English word ("memory", "everything") is not taken as
// named: in "graph memory usage" the word is what the request is about.
func (sn *snapshot) mentionedPlugin(text string) (string, string) {
	toks := Tokenize(text)
	if len(toks) < 2 {
		return "", text
	}
	found, at := "", -1
	for i, t := range toks {
		if thesaurus().has(stem(t)) {
			continue
		}
		for _, s := range sn.segs {
			if s.plugin == t || s.oneWord && contains(synonymsOf[stem(t)], stem(s.plugin)) {
				if found != "" && found != s.plugin {
					return "", text // two plugins: rank across both
				}
				found, at = s.plugin, i
			}
		}
	}
	if found == "" {
		return "", text
	}
	rest := append(append([]string(nil), toks[:at]...), toks[at+1:]...)
	return found, strings.Join(rest, " ")
}
