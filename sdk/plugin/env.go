package plugin

import (
	"os"
	"strings"

	"github.com/toolgate/toolgate/sdk/internal/wire"
)

// handshakeEnv are the variables go-plugin hands a plugin process to set up
// its connection to the host: a client certificate, a socket directory, the
// magic cookie. They are the plugin's alone.
var handshakeEnv = map[string]bool{
	wire.Handshake.MagicCookieKey: true,
	"PLUGIN_CLIENT_CERT":          true,
	"PLUGIN_UNIX_SOCKET_DIR":      true,
	"PLUGIN_UNIX_SOCKET_GROUP":    true,
	"PLUGIN_PROTOCOL_VERSIONS":    true,
	"PLUGIN_MIN_PORT":             true,
	"PLUGIN_MAX_PORT":             true,
	"PLUGIN_MULTIPLEX_GRPC":       true,
}

// ChildEnv is the plugin's environment without go-plugin's handshake
// variables: what a program the plugin starts should inherit. A child that
// saw them could mistake itself for a plugin, and would hold the host's
// client certificate.
func ChildEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !handshakeEnv[name] {
			out = append(out, kv)
		}
	}
	return out
}
