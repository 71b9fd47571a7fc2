package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// maxFileFuncBytes bounds what file() reads: it exists for tokens, certificates and small
// snippets, and a bound keeps a mistaken path (a log, a disk image) from exhausting memory.
const maxFileFuncBytes = 1 << 20

// evalContext is the only vocabulary a config expression has: a few functions and no
// variables, so a config file reads the same wherever it is evaluated. baseDir anchors
// the relative paths given to file(); envRead learns each name env() is asked for.
func evalContext(baseDir string, envRead func(name string)) *hcl.EvalContext {
	return &hcl.EvalContext{
		Functions: map[string]function.Function{
			"env":   envFunc(envRead),
			"file":  fileFunc(baseDir),
			"lower": stdlib.LowerFunc,
			"upper": stdlib.UpperFunc,
		},
	}
}

// envFunc is env("NAME") or env("NAME", "default"). An unset variable without a default
// is an error rather than "", because an empty token or URL silently changes behaviour
// (an empty token disables authentication).
func envFunc(read func(name string)) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the value of an environment variable, or the default given as second argument.",
		Params: []function.Parameter{
			{Name: "name", Type: cty.String},
		},
		VarParam: &function.Parameter{Name: "default", Type: cty.String},
		Type:     function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, function.NewArgErrorf(2, "env takes a name and at most one default")
			}
			name := args[0].AsString()
			read(name)
			if v, ok := os.LookupEnv(name); ok {
				return cty.StringVal(v), nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			return cty.NilVal, fmt.Errorf("environment variable %q is not set and no default is given", name)
		},
	})
}

// fileFunc reads a file relative to the config file's directory, so a config and the
// secrets next to it can be moved together.
func fileFunc(baseDir string) function.Function {
	return function.New(&function.Spec{
		Description: "Returns the contents of a file, relative paths taken from the config file's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := resolvePath(baseDir, args[0].AsString())
			data, err := readSmallFile(path)
			if err != nil {
				return cty.NilVal, err
			}
			if !utf8.Valid(data) {
				return cty.NilVal, fmt.Errorf("%s is not valid UTF-8 text", path)
			}
			return cty.StringVal(string(data)), nil
		},
	})
}

var errNotRegular = errors.New("not a regular file")

// readSmallFile refuses devices and pipes (file("/dev/stdin") would block the load) and
// files over maxFileFuncBytes.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, errNotRegular)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileFuncBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileFuncBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxFileFuncBytes)
	}
	return data, nil
}

// resolvePath expands a leading "~/" and anchors relative paths at baseDir.
func resolvePath(baseDir, p string) string {
	if p == "~" || len(p) > 1 && p[0] == '~' && p[1] == '/' {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if filepath.IsAbs(p) || baseDir == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(baseDir, p)
}
