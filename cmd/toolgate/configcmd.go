package main

import (
	"context"
	"encoding/json"
	"errors"
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
	var output string
	validate := &cobra.Command{
		Use:   "validate [FILE]",
		Short: "Check a config file and its plugins' settings; problems are printed as file:line:col: message",
		Long: `Check a config file, then each plugin block against what its plugin accepts:
executables are looked for, and settings are checked against the config schema
the plugin describes, from its cached manifest or, when none is cached, by
starting the plugin without configuring it. TOOLGATE_* variables are applied
over the file as serve applies them. Every problem is printed at once.
With -o json the answer is one object: file, valid, plugins, problems (file,
line, column, message) and warnings. Exit status 1 when there is a problem.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			v := validateConfig(cmd.Context(), path)
			if output == "json" {
				if err := printJSON(cmd.OutOrStdout(), v); err != nil {
					return err
				}
			} else {
				for _, p := range v.Problems {
					fmt.Fprintln(cmd.ErrOrStderr(), p.text())
				}
				for _, w := range v.Warnings {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
				}
				if v.Valid {
					n := fmt.Sprintf("%d plugins", v.Plugins)
					if v.Plugins == 1 {
						n = "1 plugin"
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%s)\n", v.File, n)
				}
			}
			if !v.Valid {
				return exitError{code: 1}
			}
			return nil
		},
	}
	addOutputFlag(validate, validate.Flags(), &output)
	c.AddCommand(validate)
	return c
}

// validation is what config validate found.
type validation struct {
	File     string    `json:"file"`
	Valid    bool      `json:"valid"`
	Plugins  int       `json:"plugins"`
	Problems []problem `json:"problems"`
	Warnings []string  `json:"warnings,omitempty"`
}

type problem config.Problem

// text is a problem as a line an editor or terminal turns into a link.
func (p problem) text() string {
	if p.File == "" || p.Line == 0 {
		return p.Message
	}
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Message)
}

// validateConfig checks the config at path (or the one the fallbacks find)
// and then its plugins' settings.
func validateConfig(ctx context.Context, path string) validation {
	v := validation{File: path, Problems: []problem{}}
	fail := func(err error) validation {
		var ce *config.Error
		if !errors.As(err, &ce) {
			v.Problems = append(v.Problems, problem{Message: err.Error()})
			return v
		}
		for _, p := range ce.Problems() {
			v.Problems = append(v.Problems, problem(p))
		}
		return v
	}
	cfg, err := config.Resolve(path)
	if err != nil {
		return fail(err)
	}
	v.File, v.Plugins = cfg.File, len(cfg.Plugins)
	// serve layers TOOLGATE_* variables over the file: check what it would run.
	if err := cfg.Layer(nil); err != nil {
		return fail(err)
	}
	self, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	if err := cfg.CheckPlugins(configSchemas(ctx, cfg, self)); err != nil {
		return fail(err)
	}
	v.Valid, v.Warnings = true, cfg.Warnings
	return v
}

// configSchemas finds each plugin's config schema as the gateway would run
// it: from the manifest stored the last time this setup ran, else from the
// plugin itself, started and asked but never configured.
func configSchemas(ctx context.Context, cfg *config.Config, self string) config.SchemaSource {
	if ctx == nil {
		ctx = context.Background()
	}
	byName := map[string]supervisor.Spec{}
	for _, s := range specs(cfg, findLauncher(self)) {
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
