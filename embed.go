// Package toolgate holds what the binary embeds from the repository root: the
// default config that `toolgate serve` runs when given none.
package toolgate

import _ "embed"

// ExampleConfig is config.example.hcl, the default config.
//
//go:embed config.example.hcl
var ExampleConfig []byte
