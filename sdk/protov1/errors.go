package protov1

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotFound marks an unknown tool, resource or prompt. It crosses the process
// boundary as gRPC NotFound and comes back as ErrNotFound.
var ErrNotFound = errors.New("not found")

// ErrInvalidArgument marks a request the plugin refuses as malformed.
var ErrInvalidArgument = errors.New("invalid argument")

// NotFoundf returns an error that wraps ErrNotFound.
func NotFoundf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrNotFound)
}

// InvalidArgumentf returns an error that wraps ErrInvalidArgument.
func InvalidArgumentf(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrInvalidArgument)
}

// FieldError is a problem with one field of a plugin's config block.
type FieldError struct {
	Path    string // JSON path, dot separated ("url", "args.1"); empty for the whole block
	Message string
}

func (e FieldError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// ConfigError lists every problem Configure found, so the host can report each
// one at the file:line:col where the operator wrote it.
type ConfigError struct {
	Fields []FieldError
}

func (e *ConfigError) Error() string {
	msgs := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		msgs[i] = f.Error()
	}
	return "invalid config: " + strings.Join(msgs, "; ")
}
