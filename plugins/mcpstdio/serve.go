package mcpstdio

import "github.com/toolgate/toolgate/sdk/plugin"

// Serve runs the mcp-stdio plugin in this process until the host stops it.
// Both the toolgate-mcp-stdio executable and `toolgate plugin serve
// mcp-stdio` call it, so the two serve the same thing. version is what
// GetInfo reports, the gateway's own version stamp, so a gateway can tell a
// wrapper left from another build.
func Serve(version string) {
	logger := plugin.Logger()
	b := New(logger)
	b.Version = version
	plugin.ServeBackend(b, logger)
}
