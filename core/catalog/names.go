package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxNameLen is MCP's limit on tool and prompt names.
const MaxNameLen = 64

// ExternalName is the name a plugin's tool or prompt is exposed under:
// x_<plugin>_<name>, made to fit MCP's ^[A-Za-z0-9_-]{1,64}$. It depends only on
// the plugin and the original name, so it never changes because another plugin
// joined. Plugin names cannot contain "_", so the prefix is unambiguous.
func ExternalName(plugin, name string) string {
	var b strings.Builder
	b.WriteString("x_")
	b.WriteString(plugin)
	b.WriteByte('_')
	changed := false
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	out := b.String()
	if len(out) <= MaxNameLen && !changed {
		return out
	}
	// A name that had to be altered gets a short hash of the original, so two
	// names that differ only in replaced characters stay distinct.
	suffix := "_" + shortHash(name)
	if len(out)+len(suffix) > MaxNameLen {
		out = out[:MaxNameLen-len(suffix)]
	}
	return out + suffix
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// PluginOf returns the plugin an exposed name belongs to, read from its
// x_<plugin>_ prefix, so a name can be traced to its plugin even when the
// plugin never listed its tools.
func PluginOf(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, "x_")
	if !ok {
		return "", false
	}
	plugin, _, ok := strings.Cut(rest, "_")
	if !ok || plugin == "" {
		return "", false
	}
	return plugin, true
}
