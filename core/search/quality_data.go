package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrQualityData marks a quality set that cannot be evaluated as written.
var ErrQualityData = errors.New("bad quality data")

// The files of a quality set directory.
const (
	catalogsDir      = "catalogs"                   // <name>.json: {package, version, tools} captured from npm servers
	toolsDir         = "tools"                      // <name>.json: tools/list of toolgate's own plugins
	tuningFile       = "queries-tuning.yaml"        // even hash: read, studied, tuned on
	tunedOnFile      = "queries-tuned-on.yaml"      // the set the synonym table was written from; tuning only
	heldOutFile      = "queries-heldout.yaml"       // odd hash: scored only
	heldOutFreshFile = "queries-heldout-fresh.yaml" // odd hash, written after the method rounds: scored only
	queryFileHashN   = 2
)

// heldOutFiles are the held-out query files, in QualitySet.heldOut's order.
var heldOutFiles = []string{heldOutFile, heldOutFreshFile}

// QualityQuery is one labelled request: the text and the tool IDs that
// answer it, with where it is written.
type QualityQuery struct {
	Text string
	Want []string
	File string
	Line int
}

func (q QualityQuery) String() string {
	return fmt.Sprintf("%s:%d: query %q", q.File, q.Line, q.Text)
}

// QualitySet is the data of an evaluation: the tools and the two halves of
// the labelled queries.
type QualitySet struct {
	Docs   []Doc
	Tuning []QualityQuery // queries-tuning.yaml, then queries-tuned-on.yaml
	// heldOut holds one list per file of heldOutFiles; unexported so that
	// nothing outside scoring reads it.
	heldOut [][]QualityQuery
}

// HeldOutLen is the number of held-out queries, all files together.
func (s QualitySet) HeldOutLen() int {
	n := 0
	for _, qs := range s.heldOut {
		n += len(qs)
	}
	return n
}

// normaliseQuery folds case and runs of space, the form the split hashes.
func normaliseQuery(text string) string {
	return strings.Join(strings.Fields(strings.ToLower(text)), " ")
}

// heldOutByHash reports whether a query belongs to the held-out half: the
// FNV-1a 64 hash of its normalised text is odd. The rule is fixed so that a
// query's half never depends on who wrote it or when.
func heldOutByHash(text string) bool {
	h := fnv.New64a()
	h.Write([]byte(normaliseQuery(text)))
	return h.Sum64()%queryFileHashN == 1
}

// LoadQualitySet reads dir's catalogs, tools and query files and checks that
// every query names known tools and sits in the half its hash picks.
func LoadQualitySet(dir string) (QualitySet, error) {
	docs, err := loadCatalogs(dir)
	if err != nil {
		return QualitySet{}, err
	}
	known := make(map[string]bool, len(docs))
	for _, d := range docs {
		known[d.ID] = true
	}
	read := func(name string) ([]QualityQuery, error) {
		qs, err := loadQueries(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			for _, id := range q.Want {
				if !known[id] {
					return nil, fmt.Errorf("%v expects unknown tool %q: %w", q, id, ErrQualityData)
				}
			}
		}
		return qs, nil
	}
	var set QualitySet
	set.Docs = docs
	tuning, err := read(tuningFile)
	if err != nil {
		return QualitySet{}, err
	}
	tunedOn, err := read(tunedOnFile)
	if err != nil {
		return QualitySet{}, err
	}
	for _, name := range heldOutFiles {
		qs, err := read(name)
		if err != nil {
			return QualitySet{}, err
		}
		set.heldOut = append(set.heldOut, qs)
	}
	if err := checkSplit(tuning, tunedOn, set.heldOut...); err != nil {
		return QualitySet{}, err
	}
	set.Tuning = append(tuning, tunedOn...)
	return set, nil
}

// checkSplit holds the split: each hashed query in the half its hash names,
// no query on both sides, and none in two held-out files.
func checkSplit(tuning, tunedOn []QualityQuery, heldOut ...[]QualityQuery) error {
	for _, q := range tuning {
		if heldOutByHash(q.Text) {
			return fmt.Errorf("%v hashes to the held-out half; it belongs in a held-out file (%s): %w",
				q, strings.Join(heldOutFiles, ", "), ErrQualityData)
		}
	}
	tuningSide := map[string]bool{}
	for _, q := range slices.Concat(tuning, tunedOn) {
		tuningSide[normaliseQuery(q.Text)] = true
	}
	heldOutSide := map[string]QualityQuery{}
	for _, q := range slices.Concat(heldOut...) {
		norm := normaliseQuery(q.Text)
		if !heldOutByHash(q.Text) {
			return fmt.Errorf("%v hashes to the tuning half; it belongs in %s: %w", q, tuningFile, ErrQualityData)
		}
		if tuningSide[norm] {
			return fmt.Errorf("%v is also on the tuning side: %w", q, ErrQualityData)
		}
		if first, ok := heldOutSide[norm]; ok {
			return fmt.Errorf("%v is also held out at %s:%d: %w", q, first.File, first.Line, ErrQualityData)
		}
		heldOutSide[norm] = q
	}
	return nil
}

// loadQueries reads one query file: a YAML list of {q, want}.
func loadQueries(path string) ([]QualityQuery, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read quality queries: %w", err)
	}
	name := filepath.Base(path)
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("parse %s: %w: %w", name, err, ErrQualityData)
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: want a list of {q, want}: %w", name, ErrQualityData)
	}
	var out []QualityQuery
	seen := map[string]int{}
	for _, item := range root.Content[0].Content {
		var e struct {
			Q    string   `yaml:"q"`
			Want []string `yaml:"want"`
		}
		if err := item.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w: %w", name, item.Line, err, ErrQualityData)
		}
		q := QualityQuery{Text: e.Q, Want: e.Want, File: name, Line: item.Line}
		switch {
		case strings.TrimSpace(e.Q) == "":
			return nil, fmt.Errorf("%s:%d: query has no text: %w", name, item.Line, ErrQualityData)
		case len(e.Want) == 0:
			return nil, fmt.Errorf("%v expects no tool: %w", q, ErrQualityData)
		}
		norm := normaliseQuery(e.Q)
		if first, ok := seen[norm]; ok {
			return nil, fmt.Errorf("%v repeats line %d: %w", q, first, ErrQualityData)
		}
		seen[norm] = item.Line
		out = append(out, q)
	}
	return out, nil
}

// capturedTool is a tool as MCP tools/list returns it.
type capturedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// loadCatalogs reads dir/catalogs/*.json (captured servers, written by
// scripts/capture-catalogs.sh) and dir/tools/*.json (toolgate's own
// plugins) into docs with IDs x_<file name>_<tool>.
func loadCatalogs(dir string) ([]Doc, error) {
	var docs []Doc
	seen := map[string]string{}
	for _, sub := range []string{catalogsDir, toolsDir} {
		files, err := filepath.Glob(filepath.Join(dir, sub, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("list tool files: %w", err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no tool files in %s: %w", filepath.Join(dir, sub), ErrQualityData)
		}
		for _, file := range files {
			tools, err := readToolFile(file, sub == catalogsDir)
			if err != nil {
				return nil, err
			}
			plugin := strings.TrimSuffix(filepath.Base(file), ".json")
			if other, ok := seen[plugin]; ok {
				return nil, fmt.Errorf("%s: catalog %q is also in %s: %w", file, plugin, other, ErrQualityData)
			}
			seen[plugin] = file
			for _, t := range tools {
				docs = append(docs, Doc{ID: "x_" + plugin + "_" + t.Name, Plugin: plugin, Name: t.Name,
					Description: t.Description, Params: ParamsFromSchema(t.InputSchema)})
			}
		}
	}
	return docs, nil
}

// readToolFile reads a captured catalog ({package, version, tools}) or a
// bare tools/list array.
func readToolFile(file string, captured bool) ([]capturedTool, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read tool file: %w", err)
	}
	var tools []capturedTool
	if captured {
		var c struct {
			Package string         `json:"package"`
			Version string         `json:"version"`
			Tools   []capturedTool `json:"tools"`
		}
		err = json.Unmarshal(raw, &c)
		if err == nil && (c.Package == "" || c.Version == "") {
			err = errors.New("no package or version")
		}
		tools = c.Tools
	} else {
		err = json.Unmarshal(raw, &tools)
	}
	if err != nil {
		return nil, fmt.Errorf("parse tool file %s: %w: %w", file, err, ErrQualityData)
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("tool file %s lists no tools: %w", file, ErrQualityData)
	}
	return tools, nil
}
