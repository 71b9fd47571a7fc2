package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Config is how a plugin takes its `config {}` block: the block's JSON
// Schema, which the gateway checks an operator's settings against before the
// plugin runs (`toolgate config validate`), and what to do with them. Build
// it with NewConfig.
type Config struct {
	Schema    json.RawMessage
	Configure func(ctx context.Context, raw json.RawMessage) error
}

// NewConfig takes the config block as a C, a struct with json tags. Its
// schema is derived as a tool's arguments' is (description, enum and default
// tags, embedded structs flattened); the block is decoded as DecodeConfig
// does and also checked against that schema (required settings, enum
// values), the check `toolgate config validate` makes ahead, and fn gets
// the result before any call.
func NewConfig[C any](fn func(ctx context.Context, cfg C) error) *Config {
	var zero C
	return &Config{Schema: mustSchema(zero), Configure: func(ctx context.Context, raw json.RawMessage) error {
		var cfg C
		if problems := decodeObject(raw, &cfg, true); len(problems) > 0 {
			return configError(problems)
		}
		return fn(ctx, cfg)
	}}
}

// noConfigSchema describes the config block of a plugin that takes none, so
// the gateway refuses any setting before it starts the plugin.
var noConfigSchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// DecodeConfig decodes a plugin's config block into v (a pointer to a struct
// with json tags): fields with a `default:"..."` tag start with that value,
// and unknown or mistyped settings come back as a *ConfigError whose paths
// the host maps to the operator's file:line:col.
//
// It does not check what only the schema says (required settings, enum
// values): a plugin with a Configure of its own checks those itself, so it
// can report them with everything else it finds wrong. NewConfig does check
// them.
func DecodeConfig(raw json.RawMessage, v any) error {
	problems := decodeObject(raw, v, false)
	if len(problems) == 0 {
		return nil
	}
	return configError(problems)
}

// configError words decoding problems as settings of a config block.
func configError(problems []problem) error {
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
