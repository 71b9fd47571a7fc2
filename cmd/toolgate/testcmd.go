package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/scenario"
)

func init() { clientCommands = append(clientCommands, testCmd) }

func testCmd() *cobra.Command {
	var url, config, token, junit string
	c := &cobra.Command{
		Use:   "test SCENARIO.yaml...",
		Short: "Run YAML smoke-test scenarios against a gateway (exit status 1 if a step fails)",
		Long: "Each scenario names a config (a gateway is started for it) or a url; --config or\n" +
			"--url replace that for every scenario. Prints one line per step and a summary\n" +
			"`N passed, N failed`. The file format is in scenarios/README.md.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			if url != "" && config != "" {
				return fmt.Errorf("use either --url or --config, not both")
			}
			if token == "" {
				token = os.Getenv("TOOLGATE_TOKEN")
			}
			var report *os.File
			if junit != "" {
				// Opened first: a path that cannot be written fails now, not
				// after every scenario has run.
				f, err := os.Create(junit)
				if err != nil {
					return fmt.Errorf("--junit: %w", err)
				}
				defer f.Close()
				report = f
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			r := &scenario.Runner{
				Config: config, URL: url, Token: token, Out: cmd.OutOrStdout(),
				StartGateway: func(ctx context.Context, path string) (*scenario.Gateway, error) {
					gw, err := startGateway(ctx, path)
					if err != nil {
						return nil, err
					}
					return &scenario.Gateway{URL: gw.url, Token: gw.token, Stop: gw.stop}, nil
				},
			}
			rep, err := r.Run(ctx, files)
			if report != nil && rep != nil {
				// Written on an interrupt too: the steps that ran are in it.
				if jerr := writeJUnit(report, rep); jerr != nil {
					return jerr
				}
			}
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("interrupted: %d passed, %d failed before the signal", rep.Passed, rep.Failed)
				}
				return err
			}
			if rep.Failed > 0 {
				return exitError{code: 1}
			}
			return nil
		},
	}
	c.Flags().StringVar(&url, "url", "", "run every scenario against the gateway at this URL")
	c.Flags().StringVar(&config, "config", "", "run every scenario against a gateway started with this config")
	c.Flags().StringVar(&token, "token", "", "bearer token for --url (default $TOOLGATE_TOKEN)")
	c.Flags().StringVar(&junit, "junit", "", "also write a JUnit XML report to this file")
	return c
}

func writeJUnit(f *os.File, rep *scenario.Report) error {
	if err := rep.WriteJUnit(f); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}
