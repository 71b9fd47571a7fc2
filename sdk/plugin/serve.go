package plugin

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"golang.org/x/sys/unix"
	"google.golang.org/grpc"

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
	exitUnlessRunByHost(p.Name)
	ServeBackend(b, Logger())
}

// ServeBackend runs any Backend as a plugin process; plugins whose tools are
// only known at run time implement Backend themselves.
func ServeBackend(b protov1.Backend, logger hclog.Logger) {
	exitUnlessRunByHost("NAME")
	detachStdin()
	endGroupOnTerm()
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.VersionedPlugins(&wire.Server{Backend: b, Logger: logger}),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, wire.ServerOptions()...)...)
		},
		TLSProvider: serverTLS(),
		Logger:      logger,
	})
}

// exitUnlessRunByHost stops a plugin run by hand, with what to do instead:
// go-plugin's own refusal names neither toolgate nor the config block that
// runs the plugin. label is the config label to suggest. The block is given
// only for a binary run without arguments, as `path` runs it: one run with
// arguments (toolgate's own built-ins) is started some other way.
func exitUnlessRunByHost(label string) {
	if os.Getenv(wire.Handshake.MagicCookieKey) == wire.Handshake.MagicCookieValue {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	fmt.Fprintf(os.Stderr, "%s is a toolgate plugin: toolgate starts it, it does not run by hand.\n", exe)
	if len(os.Args) == 1 {
		fmt.Fprintf(os.Stderr, `Add it to the gateway's config:

  plugin %q {
    path = %q
  }

then list its tools with: toolgate tools list --config FILE
Its tests serve it in-process with plugintest.ServePlugin.
`, label, exe)
	}
	os.Exit(1)
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

// endGroupOnTerm kills the plugin's whole process group on SIGTERM. The host
// starts every plugin as the leader of its own group and has the kernel send
// SIGTERM when the host dies; ending the group then takes down whatever the
// plugin spawned (an npx and the node under it), not just the plugin.
func endGroupOnTerm() {
	if unix.Getpgrp() != os.Getpid() {
		return // not a group of our own: run by hand, not by a host
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	go func() {
		<-ch
		_ = syscall.Kill(0, syscall.SIGKILL)
	}()
}
