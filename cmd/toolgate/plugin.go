package main

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/plugins/kubernetes"
	"github.com/toolgate/toolgate/plugins/mcpstdio"
	"github.com/toolgate/toolgate/plugins/prometheus"
	"github.com/toolgate/toolgate/sdk/plugin"
)

// builtins serve the built-in plugin types in a re-executed toolgate process,
// so a crash in a backend never takes the gateway down. mcp-stdio is served
// here only when toolgate-mcp-stdio is not beside toolgate (launcher.go).
var builtins = map[string]func(){
	"mcp-stdio":  func() { mcpstdio.Serve(version) },
	"prometheus": func() { plugin.Serve(prometheus.Plugin()) },
	"kubernetes": func() {
		logger := plugin.Logger()
		plugin.ServeBackend(kubernetes.New(logger), logger)
	},
}

func pluginCmd() *cobra.Command {
	c := &cobra.Command{Use: "plugin", Short: "Write a new plugin"}
	c.AddCommand(pluginInitCmd())
	c.AddCommand(&cobra.Command{
		Use:    "serve TYPE",
		Short:  "Serve a built-in plugin (started by the gateway)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			serve, ok := builtins[args[0]]
			if !ok {
				return fmt.Errorf("unknown built-in plugin type %q (known: %v)", args[0], builtinNames())
			}
			serve()
			return nil
		},
	})
	return c
}

func builtinNames() []string {
	var names []string
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// The config package lists the same types; a test keeps the two in step.
var _ = config.BuiltinTypes
