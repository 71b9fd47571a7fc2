package plugin

import "fmt"

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
