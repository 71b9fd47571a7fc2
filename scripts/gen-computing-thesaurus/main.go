// Command gen-computing-thesaurus turns the Free On-line Dictionary of
// Computing (FOLDOC, as Debian's dict-foldoc package ships it) into the
// computing-sense thesaurus core/search embeds next to the WordNet one.
// WordNet relates words in their everyday senses; FOLDOC knows that a folder
// is a directory and the web is the World-Wide Web.
//
// Two kinds of relation are read, both written by FOLDOC's editors as such:
//   - the headwords of one entry ("directory", "directories", "folder" head
//     one definition), which name the same thing;
//   - an entry whose whole definition is a cross-reference to another
//     ("web: {World-Wide Web}"), a short form or alias pointing to the
//     entry it stands for; it joins that entry's headwords.
//
// Only one-word terms of plain letters (three or more) are kept, and a group
// larger than maxGroup is dropped: such groups collect the spellings of a
// product's name rather than words a request uses. The output has the
// format of core/search/thesaurus.txt.gz: gzip-compressed lines "word<TAB>
// related related ...".
//
// Usage: go run ./scripts/gen-computing-thesaurus [-foldoc /usr/share/dictd/foldoc.dict.dz] [-out core/search/computing.txt.gz]
// (apt-get install dict-foldoc provides /usr/share/dictd/foldoc.dict.dz.)
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/scripts/internal/wordlist"
)

const maxGroup = 6

func main() {
	in := flag.String("foldoc", "/usr/share/dictd/foldoc.dict.dz", "FOLDOC in dictd format (dictzip or plain)")
	out := flag.String("out", "core/search/computing.txt.gz", "file to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-computing-thesaurus:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("read FOLDOC: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(in, ".dz") || strings.HasSuffix(in, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("read FOLDOC %s: %w", in, err)
		}
		r = zr
	}
	entries, err := parse(r)
	if err != nil {
		return fmt.Errorf("read FOLDOC %s: %w", in, err)
	}
	return wordlist.Write(out, relate(entries))
}

// entry is one FOLDOC definition: its headwords and its body.
type entry struct {
	heads []string
	body  string
}

// parse reads the dictd text: an entry is one or more unindented headword
// lines followed by its indented body; the 00-database-* entries are the
// file's own metadata.
func parse(r io.Reader) ([]entry, error) {
	var out []entry
	var cur *entry
	inBody := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if cur != nil && len(cur.heads) > 0 && cur.body == "" && !inBody {
				inBody = true // blank line between the headwords and the body
			}
		case line[0] != ' ' && line[0] != '\t':
			if cur == nil || inBody || cur.body != "" {
				out = append(out, entry{})
				cur = &out[len(out)-1]
				inBody = false
			}
			cur.heads = append(cur.heads, strings.ToLower(strings.TrimSpace(line)))
		default:
			if cur != nil {
				cur.body += strings.TrimSpace(line) + " "
				inBody = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) < 1000 {
		return nil, fmt.Errorf("only %d entries: is this FOLDOC?", len(out))
	}
	return out, nil
}

var (
	domainTag = regexp.MustCompile(`<[^>]*>`)
	onlyRef   = regexp.MustCompile(`^(?:see\s+)?\{([^{}]+)\}\.?$`)
	refParen  = regexp.MustCompile(`\s*\([^()]*\)\s*$`)
	dateLine  = regexp.MustCompile(`\(\d{4}-\d{2}-\d{2}\)`)
)

// redirect returns the entry an alias entry points to, or "" when the body
// defines something of its own. Only a body that is one cross-reference
// (after its domain tag and date) counts; several senses mean a word with
// several meanings, and the first is read only when it is a bare reference.
func redirect(body string) string {
	b := dateLine.ReplaceAllString(body, "")
	b = strings.TrimSpace(domainTag.ReplaceAllString(b, ""))
	if strings.HasPrefix(b, "1.") {
		// Of several senses, the first (FOLDOC's main one) counts.
		b = strings.TrimSpace(b[2:])
		if i := strings.Index(b, " 2. "); i >= 0 {
			b = b[:i]
		}
	}
	m := onlyRef.FindStringSubmatch(strings.ToLower(strings.TrimSpace(b)))
	if m == nil {
		return ""
	}
	// "{World-Wide Web (WWW)}" names the entry before the parenthesis.
	return strings.TrimSpace(refParen.ReplaceAllString(m[1], ""))
}

// relate groups the one-word headwords that name one thing.
func relate(entries []entry) map[string][]string {
	byHead := map[string]int{}
	for i, e := range entries {
		for _, h := range e.heads {
			if _, ok := byHead[h]; !ok {
				byHead[h] = i
			}
		}
	}
	groups := make([][]string, len(entries))
	for i, e := range entries {
		groups[i] = append(groups[i], e.heads...)
	}
	for i, e := range entries {
		if t := redirect(e.body); t != "" {
			if j, ok := byHead[t]; ok && j != i {
				groups[j] = append(groups[j], e.heads...)
			}
		}
	}
	related := map[string][]string{}
	for _, g := range groups {
		var words []string
		for _, h := range g {
			if wordlist.Usable(h) && !slices.Contains(words, h) {
				words = append(words, h)
			}
		}
		if len(words) < 2 || len(words) > maxGroup {
			continue
		}
		for _, a := range words {
			for _, b := range words {
				if a != b && !slices.Contains(related[a], b) {
					related[a] = append(related[a], b)
				}
			}
		}
	}
	return related
}
