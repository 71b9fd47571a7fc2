package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/config"
)

func configCmd() *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Work with config files"}
	c.AddCommand(&cobra.Command{
		Use:   "validate [FILE]",
		Short: "Check a config file; problems are printed as file:line:col: message",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			cfg, err := config.Resolve(path)
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), err)
				return exitError{code: 1}
			}
			for _, w := range cfg.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%d plugins)\n", cfg.File, len(cfg.Plugins))
			return nil
		},
	})
	return c
}
