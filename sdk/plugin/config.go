package plugin

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// DecodeConfig decodes a plugin's config block into v (a pointer to a struct
// with json tags): fields with a `default:"..."` tag start with that value,
// and unknown or mistyped settings come back as a *ConfigError whose paths
// the host maps to the operator's file:line:col.
func DecodeConfig(raw json.RawMessage, v any) error {
	problems := decodeObject(raw, v)
	if len(problems) == 0 {
		return nil
	}
	ce := &ConfigError{}
	for _, p := range problems {
		msg := p.message
		switch {
		case p.unknown && p.near != "":
			msg = fmt.Sprintf("unknown setting; did you mean %q?", p.near)
		case p.unknown:
			msg = "unknown setting"
		case p.path == "" && msg != "":
			msg = "config block: " + msg
		}
		ce.Fields = append(ce.Fields, FieldError{Path: p.path, Message: msg})
	}
	return ce
}

// Required returns a FieldError, in path order, for each named field whose
// value is empty; use it after DecodeConfig.
func Required(fields map[string]string) []FieldError {
	var out []FieldError
	for path, v := range fields {
		if strings.TrimSpace(v) == "" {
			out = append(out, FieldError{Path: path, Message: "is required"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
