package plugin_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// MCP clients refuse a result whose structured content is not an object
// (the official TypeScript SDK fails the whole call); JSON says so to the
// author instead.
func TestJSONWantsAnObject(t *testing.T) {
	for _, v := range []any{struct{ A int }{1}, map[string]int{"a": 1}, &struct{}{}} {
		if res, err := plugin.JSON(v, ""); err != nil || res.StructuredContent[0] != '{' {
			t.Errorf("JSON(%#v) = %v, %v; want an object result", v, res, err)
		}
	}
	for v, kind := range map[any]string{"s": "a string", 3: "a number", true: "true or false"} {
		if _, err := plugin.JSON(v, ""); err == nil || !strings.Contains(err.Error(), "must be a JSON object, not "+kind) {
			t.Errorf("JSON(%#v) err = %v, want one naming %s", v, err, kind)
		}
	}
	for _, v := range []any{[]int{1}, []string(nil), nil} {
		if _, err := plugin.JSON(v, ""); err == nil || !strings.Contains(err.Error(), "put it in a field") {
			t.Errorf("JSON(%#v) err = %v, want one saying to put it in a field", v, err)
		}
	}
}
