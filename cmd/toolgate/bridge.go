package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/bridge"
	"github.com/toolgate/toolgate/core/client"
)

func init() { clientCommands = append(clientCommands, bridgeCmd) }

func bridgeCmd() *cobra.Command {
	var url, token, level string
	c := &cobra.Command{
		Use:   "bridge --url URL [--token TOKEN]",
		Short: "Serve MCP on stdio and forward it to a gateway over streamable HTTP (for IDEs)",
		Long: "An IDE starts `toolgate bridge` as a stdio MCP server; every message goes to the\n" +
			"gateway at --url and back. When the gateway restarts, the bridge opens a new\n" +
			"session by itself. When no gateway answers at --url, the IDE's initialize gets\n" +
			"an error that says so within 5 s. Logs go to stderr.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				// The likeliest slip in an IDE's args list: the URL without its flag.
				return fmt.Errorf("unexpected argument %q: give the gateway's URL with --url, as in toolgate bridge --url %s", args[0], client.DefaultURL)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			lvl := hclog.LevelFromString(level)
			if lvl == hclog.NoLevel {
				return fmt.Errorf("--log-level %q: want trace, debug, info, warn or error", level)
			}
			if token == "" {
				token = os.Getenv("TOOLGATE_TOKEN")
			}
			logger := hclog.New(&hclog.LoggerOptions{Name: "toolgate-bridge", Level: lvl, Output: os.Stderr})
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			logger.Debug("bridging stdio", "url", url)
			return bridge.Run(ctx, os.Stdin, os.Stdout, bridge.Options{URL: url, Token: token, Logger: logger})
		},
	}
	c.Flags().StringVar(&url, "url", client.DefaultURL, "the gateway's streamable HTTP endpoint")
	c.Flags().StringVar(&token, "token", "", "bearer token for the gateway (default $TOOLGATE_TOKEN)")
	c.Flags().StringVar(&level, "log-level", "info", "trace, debug, info, warn or error")
	return c
}
