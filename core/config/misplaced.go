package config

import (
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// blockHomes maps each argument and block name of the config to the blocks
// that take it, read from the spec types' hcl tags so it cannot drift. It is
// built when a config first has such a problem, not at init: every toolgate
// process, plugins included, links this package.
var blockHomes = sync.OnceValue(func() map[string][]string {
	homes := map[string][]string{}
	for _, b := range []struct {
		where string
		spec  any
	}{
		{"the top level", fileSpec{}},
		{"the listen block", listenSpec{}},
		{"the gateway block", gatewaySpec{}},
		{"the telemetry block", telemetrySpec{}},
		{"a plugin block", pluginSpec{}},
		{"listen's oauth block", oauthSpec{}},
	} {
		t := reflect.TypeOf(b.spec)
		for i := range t.NumField() {
			name, kind, _ := strings.Cut(t.Field(i).Tag.Get("hcl"), ",")
			if name == "" || (kind != "" && kind != "optional" && kind != "block") {
				continue
			}
			homes[name] = append(homes[name], b.where)
		}
	}
	return homes
})

var unsupportedName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:An argument named|Blocks of type) "([^"]+)" (?:is|are) not expected here\.$`)
})

// placeMisplaced tells where an argument or block belongs when it is written
// in the wrong block (state_dir at the top level, call_timeout in listen),
// which is what an unknown name most often is when HCL finds no near name.
func placeMisplaced(diags hcl.Diagnostics) {
	for _, d := range diags {
		m := unsupportedName().FindStringSubmatch(d.Detail)
		if m == nil {
			continue
		}
		if homes := blockHomes()[m[1]]; len(homes) > 0 {
			d.Detail += " It belongs in " + strings.Join(homes, " or ") + "."
		}
	}
}
