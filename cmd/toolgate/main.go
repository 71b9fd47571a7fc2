// Command toolgate is the MCP gateway: one endpoint with a few meta-tools in
// front of every plugin's tools. See `toolgate --help`.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/core/config"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries a process exit code through cobra without printing twice.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func main() {
	config.DefaultSource = toolgate.ExampleConfig
	root := &cobra.Command{
		Use:           "toolgate",
		Short:         "An MCP gateway: a few meta-tools in front of every backend's tools",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCmd(), pluginCmd(), configCmd(), versionCmd())
	for _, add := range clientCommands {
		root.AddCommand(add())
	}
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "toolgate:", err)
		os.Exit(2)
	}
}

// clientCommands are the commands that talk to a gateway; each file that
// defines one adds its constructor here in an init function.
var clientCommands []func() *cobra.Command

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "toolgate %s (plugin protocol v1)\n", version)
		},
	}
}
