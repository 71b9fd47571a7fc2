package scenario

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlLine is how yaml.v3 starts a message about a place in the file; it has
// no error type that carries the line.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// syntaxError is a LoadError at the line of data a reader would fix.
// yaml.v3's own line cannot be taken as it is: for a parser error it is
// counted from 0 and is where the enclosing collection starts (a bad
// indentation is reported lines above it), an unclosed quote on the first
// line is reported at the end of the file, and a problem on the first line
// has no line at all. A decoding error (*yaml.TypeError) names its lines
// itself, counted from 1.
func syntaxError(path string, data []byte, err error) *LoadError {
	problem, line := splitYAMLError(err)
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		line = faultLine(data, problem)
	}
	return &LoadError{File: path, Line: line, Problem: problem}
}

// splitYAMLError parts a yaml.v3 message into the problem and the line it
// names (0 when none).
func splitYAMLError(err error) (string, int) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if line, aerr := strconv.Atoi(m[1]); aerr == nil {
			return msg[len(m[0]):], line
		}
	}
	return strings.TrimPrefix(msg, "yaml: "), 0
}

// linearScan is how many lines faultLine walks back one by one; a longer
// file is first narrowed by bisection, so a fault near the top of a long
// file costs a few dozen parses, not one per line.
const linearScan = 64

// faultLine is the line, counted from 1, where data starts failing to parse
// with problem: the first line of the last run of prefixes of whole lines that
// all fail with it. Lines after the fault change nothing; lines before it
// parse, or fail otherwise (a quoted string not closed yet). It runs only on
// a broken file.
func faultLine(data []byte, problem string) int {
	var ends []int // ends[i] is the length of the first i+1 lines
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	n := len(ends)
	// Bisect while the run is long: lo lines are known not to fail with
	// problem (or lo is 0), hi lines are known to.
	lo, hi := 0, n
	for hi-lo > linearScan {
		mid := lo + (hi-lo)/2
		if failsWith(data[:ends[mid-1]], problem) {
			hi = mid
		} else {
			lo = mid
		}
	}
	n = hi
	for n > 1 && failsWith(data[:ends[n-2]], problem) {
		n--
	}
	return n
}

func failsWith(prefix []byte, problem string) bool {
	var doc yaml.Node
	err := yaml.Unmarshal(prefix, &doc)
	if err == nil {
		return false
	}
	p, _ := splitYAMLError(err)
	return p == problem
}
