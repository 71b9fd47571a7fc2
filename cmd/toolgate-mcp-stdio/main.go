// Command toolgate-mcp-stdio serves the built-in mcp-stdio plugin. The
// gateway starts it, one process per mcp-stdio plugin, when it sits beside
// the toolgate executable. It holds only that plugin and the SDK, so each of
// those processes loads and initialises none of the gateway's code or the
// other built-in plugins: about 12 MB less RSS per process than re-executing
// toolgate.
package main

import (
	"fmt"
	"os"

	"github.com/toolgate/toolgate/plugins/mcpstdio"
)

// version is set at build time with -ldflags "-X main.version=...", the same
// stamp as toolgate's; the gateway warns when the two differ.
var version = "dev"

func main() {
	switch {
	case len(os.Args) == 1:
		mcpstdio.Serve(version)
	case len(os.Args) == 2 && os.Args[1] == "version":
		fmt.Printf("toolgate-mcp-stdio %s (plugin protocol v1)\n", version)
	default:
		fmt.Fprintf(os.Stderr, "toolgate-mcp-stdio: unexpected arguments %q: toolgate starts this program, with none, for each mcp-stdio plugin; \"version\" prints its version\n", os.Args[1:])
		os.Exit(2)
	}
}
