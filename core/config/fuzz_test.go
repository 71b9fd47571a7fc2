package config

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, must fail only with
// *Error, and on success must hand plugins valid JSON and a total FieldRange.
func FuzzParse(f *testing.F) {
	full, err := os.ReadFile("testdata/full.hcl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add([]byte(layerFile))
	f.Add([]byte(`plugin "x" { type = "mcp-stdoi" }`))
	f.Add([]byte("plugin \"a\" {\n  path = \"./a\"\n  config {\n    r \"x\" { v = [1, { k = upper(\"v\") }] }\n    r \"x\" {}\n  }\n}"))
	f.Add([]byte(`listen { token = env("HOME", "x") tokens = [lower("A")] }`))
	f.Add([]byte(`gateway { call_timeout = "1h" max_request_bytes = 1e3 }`))
	f.Add([]byte(`plugin "n" { type = "prometheus" config { n = 1e400 m = -0 } }`))

	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse(src, "testdata/fuzz.hcl")
		if err != nil {
			var cerr *Error
			if !errors.As(err, &cerr) || err.Error() == "" {
				t.Fatalf("error %T %q is not a non-empty *config.Error", err, err)
			}
			return
		}
		for _, p := range c.Plugins {
			if !json.Valid(p.Config) {
				t.Fatalf("plugin %q config is not JSON: %s", p.Name, p.Config)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(p.Config, &fields); err != nil {
				t.Fatalf("plugin %q config is not an object: %v", p.Name, err)
			}
			for k := range fields {
				for _, path := range []string{k, k + ".0", "/" + k + "/x", "", "/"} {
					p.FieldRange(path)
				}
			}
		}
	})
}
