// Package search is the tool index behind filter_tools: it finds the one
// right tool among thousands from a short, vague or misspelt request.
//
// Text is ranked by BM25F over a tool's fields (name strongest, then plugin,
// labels, description, parameters), with light stemming, a small domain
// synonym table and typo correction against the indexed vocabulary, fused by
// reciprocal rank with fuzzy matching of tool names (abbreviations such as
// "lstpods"). Each plugin's tools live in an immutable segment; a search
// reads an atomic snapshot of the segment list, so replacing one plugin's
// tools neither blocks searches nor rebuilds the other plugins.
package search
