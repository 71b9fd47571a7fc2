package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/pluginhost"
)

func configCmd() *cobra.Command {
	c := &cobra.Command{Use: "config", Short: "Work with config files"}
	c.AddCommand(&cobra.Command{
		Use:   "validate [FILE]",
		Short: "Check a config file and its plugins' settings; problems are printed as file:line:col: message",
		Long: `Check a config file, then each plugin block against what its plugin accepts:
executables are looked for, and settings are checked against the config schema
the plugin describes, from its cached manifest or, when none is cached, by
starting the plugin without configuring it. Every problem is printed at once.`,
		Args: cobra.MaximumNArgs(1),
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
			self, err := os.Executable()
			if err != nil {
				return err
			}
			if err := cfg.CheckPlugins(configSchemas(cmd.Context(), cfg, self)); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), err)
				return exitError{code: 1}
			}
			for _, w := range cfg.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
			}
			n := fmt.Sprintf("%d plugins", len(cfg.Plugins))
			if len(cfg.Plugins) == 1 {
				n = "1 plugin"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%s)\n", cfg.File, n)
			return nil
		},
	})
	return c
}

// configSchemas finds each plugin's config schema as the gateway would run
// it: from the manifest stored the last time this setup ran, else from the
// plugin itself, started and asked but never configured.
func configSchemas(ctx context.Context, cfg *config.Config, self string) config.SchemaSource {
	if ctx == nil {
		ctx = context.Background()
	}
	byName := map[string]supervisor.Spec{}
	for _, s := range specs(cfg, self) {
		byName[s.Name] = s
	}
	store := catalog.ManifestStore{Dir: cfg.Gateway.StateDir}
	return func(p *config.Plugin) (json.RawMessage, error) {
		spec := byName[p.Name]
		if m, err := store.Load(supervisor.ManifestKey(spec)); err == nil && m != nil && m.Info.ProtocolMinor >= 1 {
			return m.Info.ConfigSchema, nil
		}
		startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		plug, err := pluginhost.Start(startCtx, pluginhost.Config{
			Name: spec.Name, Path: spec.Path, Args: spec.Args, Env: spec.Env, Dir: spec.Dir,
			Logger: hclog.NewNullLogger(), StartTimeout: spec.StartTimeout,
		})
		if err != nil {
			return nil, err
		}
		defer plug.Kill()
		info, err := plug.GetInfo(startCtx)
		if err != nil {
			return nil, err
		}
		return info.ConfigSchema, nil
	}
}
