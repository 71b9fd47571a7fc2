package plugin

import (
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"

	"github.com/toolgate/toolgate/sdk/internal/wire"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Serve runs p as a plugin process until the host stops it. A definition error
// is printed to stderr, where the host shows it, and the process exits 1.
func Serve(p *Plugin) {
	b, err := p.Backend()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolgate plugin: %v\n", err)
		os.Exit(1)
	}
	ServeBackend(b, Logger())
}

// ServeBackend runs any Backend as a plugin process; plugins whose tools are
// only known at run time implement Backend themselves.
func ServeBackend(b protov1.Backend, logger hclog.Logger) {
	detachStdin()
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.VersionedPlugins(&wire.Server{Backend: b, Logger: logger}),
		GRPCServer:       goplugin.DefaultGRPCServer,
		Logger:           logger,
	})
}

// Logger is the plugin's logger: JSON lines on stderr, which the host parses
// into its own log with the plugin's name attached.
func Logger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Level:      hclog.Trace,
		Output:     os.Stderr,
		JSONFormat: true,
	})
}

// detachStdin points fd 0 at /dev/null: a plugin never reads its stdin, and
// code that does must not steal input meant for anyone else.
func detachStdin() {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return
	}
	defer null.Close()
	_ = unix.Dup2(int(null.Fd()), 0)
}
