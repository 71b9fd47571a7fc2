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
	// cobra adds its completion command only in Execute; made now, it is
	// checked like the others.
	root.InitDefaultCompletionCmd(os.Args[1:]...)
	refuseUnknownSubcommands(root)
	if err := root.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "toolgate:", err)
		os.Exit(2)
	}
}

// refuseUnknownSubcommands makes every command that only groups others fail
// on a word that names none of them: cobra checks that on the root alone and
// otherwise prints the group's help with exit status 0, so a script with
// `toolgate tools lst` would pass having done nothing. The group alone still
// prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c.Runnable() || !c.HasSubCommands() || !c.HasParent() {
		return
	}
	c.SuggestionsMinimumDistance = 2
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if near := cmd.SuggestionsFor(args[0]); len(near) > 0 {
			return fmt.Errorf("%s; did you mean %q?", msg, near[0])
		}
		return fmt.Errorf("%s; see %s --help", msg, cmd.CommandPath())
	}
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// clientCommands are the commands that talk to a gateway; each file that
// defines one adds its constructor here in an init function.
var clientCommands []func() *cobra.Command

func versionCmd() *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if output == "json" {
				return printJSON(cmd.OutOrStdout(), map[string]any{"version": version, "plugin_protocol": 1})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "toolgate %s (plugin protocol v1)\n", version)
			return nil
		},
	}
	addOutputFlag(c, c.Flags(), &output)
	return c
}
