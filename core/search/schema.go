package search

import (
	"encoding/json"
	"slices"
	"strings"
)

// ParamsFromSchema reads the parameters a tool's JSON Schema input declares:
// each top-level property's name, description and allowed string values
// (enum, or the enum of an array's items), sorted by name. A schema that is
// not a JSON object with properties gives none: a tool is searchable by its
// name and description whatever its schema looks like.
func ParamsFromSchema(schema json.RawMessage) []Param {
	type prop struct {
		Description string            `json:"description"`
		Enum        []json.RawMessage `json:"enum"`
		Items       *struct {
			Enum []json.RawMessage `json:"enum"`
		} `json:"items"`
	}
	var s struct {
		Properties map[string]prop `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]Param, 0, len(s.Properties))
	for name, p := range s.Properties {
		enum := p.Enum
		if p.Items != nil {
			enum = append(enum, p.Items.Enum...)
		}
		out = append(out, Param{Name: name, Description: p.Description, Enum: enumStrings(enum)})
	}
	slices.SortFunc(out, func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// enumStrings keeps the string values of an enum; numbers and booleans say
// nothing a request would name.
func enumStrings(vals []json.RawMessage) []string {
	var out []string
	for _, v := range vals {
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" {
			out = append(out, s)
		}
	}
	return out
}
