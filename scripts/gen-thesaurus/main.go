// Command gen-thesaurus turns the WordNet 3.0 database into the compact
// thesaurus core/search embeds, so that filter_tools can match a request's
// words to a tool's words through a maintained lexical resource instead of a
// hand-written list.
//
// Nouns and verbs are read (tool catalogs name things and actions), and
// adjectives (requests describe things: "how big", "a small picture"); only
// words seen in WordNet's sense-tagged corpus, and of each word only
// its most frequent senses: WordNet orders a word's senses
// by how often they were tagged in its corpus, and the rare ones ("remove"
// as "murder") would only blur the ranking. A word's entry lists the other
// one-word lemmas of those senses, the words derived from it in those senses
// ("deletion" from "delete") and, for verbs, the lemmas of the first sense's
// broader verb ("erase" leads to "remove"); for adjectives, the nouns they
// are values of (WordNet's attribute pointer: "big" and "small" are values
// of "size") and the similar adjectives of their cluster ("small": "tiny").
// The output is gzip-compressed text, one word per line: the word, a tab,
// its related words separated by spaces.
//
// Usage: go run ./scripts/gen-thesaurus [-wordnet /usr/share/wordnet] [-out core/search/thesaurus.txt.gz]
// (apt-get install wordnet-base provides /usr/share/wordnet.)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/scripts/internal/wordlist"
)

// Limits that keep the file small and the entries precise.
const (
	maxSenses  = 3  // most frequent senses read per word
	maxRelated = 16 // related words kept per word
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "directory of the WordNet database (index.noun, data.noun, ...)")
	out := flag.String("out", "core/search/thesaurus.txt.gz", "file to write")
	flag.Parse()
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-thesaurus:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	// Derivations cross parts of speech ("deletion" is a noun of the verb
	// "delete"), so every synset is read before any word is looked up.
	db := wordnet{}
	for _, pos := range []string{"noun", "verb", "adj"} {
		if err := db.readData(filepath.Join(dir, "data."+pos), pos[0]); err != nil {
			return err
		}
	}
	related := map[string][]string{}
	for _, pos := range []string{"noun", "verb", "adj"} {
		if err := db.readIndex(filepath.Join(dir, "index."+pos), pos[0], related); err != nil {
			return err
		}
	}
	return wordlist.Write(out, related)
}

// synset is one WordNet sense: its lemmas and the pointers that matter here.
type synset struct {
	person    bool // in the lexicographer file noun.person
	words     []string
	hypernyms []uint64  // broader synsets
	derived   []lexLink // derivationally related forms, word to word
	similar   []uint64  // adjectives: the similar adjectives' synsets ("&")
	attrs     []uint64  // adjectives: the nouns they are values of ("=": big, size)
}

// lexLink is a pointer from one lemma of a synset (src, 1-based) to one
// lemma of another (dst, 1-based) in the same or another part of speech.
type lexLink struct {
	src, dst int
	offset   uint64
	pos      byte
}

// wordnet holds the synsets read, by part of speech ('n', 'v', 'a') and
// offset. Adjective satellites ('s') are filed under 'a', as data.adj
// holds both.
type wordnet map[byte]map[uint64]*synset

// readData reads a data.* file: one synset per line, "offset lex_filenum
// ss_type w_cnt word lex_id ... p_cnt ptr... | gloss" (wndb(5WN)).
func (db wordnet) readData(path string, pos byte) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read WordNet data: %w", err)
	}
	defer f.Close()
	out := map[uint64]*synset{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "  ") { // licence header
			continue
		}
		if i := strings.Index(text, " | "); i >= 0 {
			text = text[:i]
		}
		fs := strings.Fields(text)
		bad := func(what string) error { return fmt.Errorf("%s:%d: %s", path, line, what) }
		if len(fs) < 4 {
			return bad("too few fields")
		}
		off, err := strconv.ParseUint(fs[0], 10, 64)
		if err != nil {
			return bad("bad offset " + fs[0])
		}
		n, err := strconv.ParseUint(fs[3], 16, 8)
		if err != nil || len(fs) < 4+2*int(n)+1 {
			return bad("bad word count " + fs[3])
		}
		// noun.person (lexicographer file 18) holds the agent nouns
		// ("remover", "creator"), which name people, never an action.
		s := &synset{person: fs[1] == "18"}
		for i := 0; i < int(n); i++ {
			w := strings.ToLower(fs[4+2*i])
			if j := strings.IndexByte(w, '('); j > 0 { // an adjective's position marker: "big(a)"
				w = w[:j]
			}
			s.words = append(s.words, w)
		}
		at := 4 + 2*int(n)
		p, err := strconv.Atoi(fs[at])
		if err != nil || len(fs) < at+1+4*p {
			return bad("bad pointer count " + fs[at])
		}
		for i := 0; i < p; i++ {
			sym, tOff, tPos, st := fs[at+1+4*i], fs[at+2+4*i], fs[at+3+4*i], fs[at+4+4*i]
			o, err := strconv.ParseUint(tOff, 10, 64)
			if err != nil || len(st) != 4 {
				return bad("bad pointer " + sym + " " + tOff)
			}
			switch sym {
			case "@", "@i":
				if tPos == string(fs[2][0]) {
					s.hypernyms = append(s.hypernyms, o)
				}
			case "+":
				src, err1 := strconv.ParseUint(st[:2], 16, 8)
				dst, err2 := strconv.ParseUint(st[2:], 16, 8)
				if err1 != nil || err2 != nil {
					return bad("bad pointer source/target " + st)
				}
				s.derived = append(s.derived, lexLink{int(src), int(dst), o, tPos[0]})
			case "&":
				s.similar = append(s.similar, o)
			case "=":
				if tPos == "n" {
					s.attrs = append(s.attrs, o)
				}
			}
		}
		out[off] = s
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read WordNet data %s: %w", path, err)
	}
	if len(out) == 0 {
		return fmt.Errorf("%s: no synsets", path)
	}
	db[pos] = out
	return nil
}

// readIndex reads an index.* file, "lemma pos synset_cnt p_cnt ptr...
// sense_cnt tagsense_cnt offset...", offsets most frequent sense first, and
// adds each usable lemma's related words to related.
func (db wordnet) readIndex(path string, pos byte, related map[string][]string) error {
	syns := db[pos]
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read WordNet index: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || strings.HasPrefix(sc.Text(), "  ") {
			continue
		}
		lemma := fs[0]
		if !wordlist.Usable(lemma) {
			continue
		}
		nSyn, err1 := strconv.Atoi(fs[2])
		nPtr, err2 := strconv.Atoi(fs[3])
		if err1 != nil || err2 != nil || len(fs) < 6+nPtr+nSyn {
			return fmt.Errorf("%s:%d: bad counts", path, line)
		}
		tagged, err := strconv.Atoi(fs[5+nPtr])
		if err != nil {
			return fmt.Errorf("%s:%d: bad tagsense_cnt", path, line)
		}
		// A noun never seen in the tagged corpus is mostly a rare name
		// (species, places); a verb is an action a tool may do ("delete"
		// is untagged) and keeps its first sense.
		if tagged == 0 && pos != 'v' {
			continue
		}
		senses := min(max(tagged, 1), maxSenses, nSyn)
		for k, o := range fs[6+nPtr : 6+nPtr+senses] {
			off, err := strconv.ParseUint(o, 10, 64)
			s := syns[off]
			if err != nil || s == nil {
				return fmt.Errorf("%s:%d: unknown synset %s", path, line, o)
			}
			add := func(w string) {
				if wordlist.Usable(w) && w != lemma && !slices.Contains(related[lemma], w) && len(related[lemma]) < maxRelated {
					related[lemma] = append(related[lemma], w)
				}
			}
			for _, w := range s.words {
				add(w)
			}
			for _, d := range s.derived {
				// Agent nouns are left out in both directions: the
				// thesaurus is read as symmetric.
				if s.person || d.src == 0 || d.src > len(s.words) || s.words[d.src-1] != lemma {
					continue
				}
				if d.pos != 'n' && d.pos != 'v' {
					// Derivations into adjectives are left out of a
					// noun's or verb's entry, which keeps the relations
					// it had; the adjective's own entry links the two,
					// and the thesaurus is read as symmetric.
					continue
				}
				if t := db[d.pos][d.offset]; t != nil && !t.person && d.dst >= 1 && d.dst <= len(t.words) {
					add(t.words[d.dst-1])
				}
			}
			// An adjective's similar adjectives ("small": "tiny", "little")
			// and the noun it is a value of ("big", "small": "size"):
			// a request asks "how big", a tool says "size".
			if pos == 'a' {
				for _, o := range s.attrs {
					if t := db['n'][o]; t != nil {
						for _, w := range t.words {
							add(w)
						}
					}
				}
				for _, o := range s.similar {
					if t := syns[o]; t != nil {
						for _, w := range t.words {
							add(w)
						}
					}
				}
			}
			if pos == 'v' && k == 0 {
				for _, h := range s.hypernyms {
					if t := syns[h]; t != nil {
						for _, w := range t.words {
							add(w)
						}
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read WordNet index %s: %w", path, err)
	}
	return nil
}
