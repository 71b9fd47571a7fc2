package plugin

import (
	"fmt"

	"github.com/toolgate/toolgate/sdk/schema"
)

// checkToolName refuses a name the gateway could only expose bent: it
// publishes a tool as x_<plugin>_<name> under MCP's ^[A-Za-z0-9_-]{1,64}$, and
// fits any other name with a hash suffix the author never chose.
func checkToolName(name string) error {
	if len(name) > 64 {
		return fmt.Errorf("tool %q: name is %d characters; MCP allows at most 64", name, len(name))
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Errorf("tool %q: name has %q; use letters, digits, _ and - (such as get_weather)", name, r)
		}
	}
	return nil
}

// checkSchemas compiles a hand-written schema with the validator the gateway
// checks calls with, so a schema it would refuse at every call stops the
// plugin at start, in the author's tests first.
func (t *Tool) checkSchemas() error {
	if !t.derived && len(t.Def.InputSchema) > 0 {
		if _, err := schema.Compile(t.Def.InputSchema); err != nil {
			return fmt.Errorf("tool %q: input schema: %w", t.Def.Name, err)
		}
	}
	if len(t.Def.OutputSchema) > 0 {
		if _, err := schema.Compile(t.Def.OutputSchema); err != nil {
			return fmt.Errorf("tool %q: output schema: %w", t.Def.Name, err)
		}
	}
	return nil
}
