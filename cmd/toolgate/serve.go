package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/core/gateway"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/core/telemetry"
)

func serveCmd() *cobra.Command {
	var (
		configPath string
		stdio      bool
	)
	c := &cobra.Command{
		Use:   "serve",
		Short: "Run the gateway (streamable HTTP at /mcp, or MCP over stdio with --stdio)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var in, out *os.File
			if stdio {
				// Before any plugin starts: plugins must never share the MCP stream.
				var err error
				if in, out, err = gateway.DetachStdio(); err != nil {
					return fmt.Errorf("serve --stdio: %w", err)
				}
			}
			cfg, err := config.Resolve(configPath)
			if err != nil {
				return err
			}
			if err := cfg.Layer(cmd.Flags()); err != nil {
				return err
			}
			logger := gatewayLogger(cfg, hclog.LevelFromString(cfg.Gateway.LogLevel))
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, cfg, logger, in, out, nil)
		},
	}
	c.Flags().StringVar(&configPath, "config", "", "config file (default $TOOLGATE_CONFIG, ./toolgate.hcl, then the built-in example)")
	c.Flags().BoolVar(&stdio, "stdio", false, "serve MCP on stdin/stdout instead of HTTP")
	config.AddFlags(c.Flags())
	return c
}

// gatewayLogger is the logger of a gateway serving cfg, on stderr at level,
// once it has told the config's warnings (a non-loopback listen address, a
// misspelt TOOLGATE_* variable): serve and the gateway a client command runs
// for --config both tell them as they start.
func gatewayLogger(cfg *config.Config, level hclog.Level) hclog.Logger {
	logger := hclog.New(&hclog.LoggerOptions{Name: "toolgate", Level: level, Output: os.Stderr})
	for _, w := range cfg.Warnings {
		logger.Warn(w)
	}
	return logger
}

// serve runs the gateway until ctx ends: stop taking work, let calls in flight
// finish up to the grace period, stop every plugin, return when all are gone.
// ready, if not nil, learns the HTTP address once connections are accepted
// (client commands run a gateway in-process on an ephemeral port).
func serve(ctx context.Context, cfg *config.Config, logger hclog.Logger, in, out *os.File, ready func(net.Addr)) error {
	return serveWith(ctx, cfg, telemetryOptions(cfg, logger), logger, in, out, ready)
}

// serveWith is serve with the telemetry options given (tests record spans).
func serveWith(ctx context.Context, cfg *config.Config, topts telemetry.Options, logger hclog.Logger, in, out *os.File, ready func(net.Addr)) error {
	if in == nil && cfg.Listen.HTTP == "" {
		// "" would listen on every interface at a random port.
		return errors.New(`listen.http is "" (no HTTP front), so there is nothing to serve; set listen.http or --http, or serve MCP on stdio with --stdio`)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find own executable for built-in plugins: %w", err)
	}
	launch := findLauncher(self)
	launch.logChoice(cfg, logger)
	gw, err := assemble(ctx, cfg, topts, launch, logger)
	if err != nil {
		return err
	}
	defer func() {
		// Last, after the calls have ended: their audit lines and spans are in.
		flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := gw.telemetry.Close(flush); err != nil {
			logger.Error("telemetry not flushed", "error", err)
		}
	}()
	pluginCtx, stopPlugins := context.WithCancel(context.Background())
	defer func() {
		stopPlugins()
		gw.plugins.Wait()
	}()
	gw.plugins.Run(pluginCtx)
	// A call waiting for a plugin to start is answered when the shutdown
	// begins, not kept through the grace that is for calls in flight.
	defer context.AfterFunc(ctx, gw.plugins.BeginShutdown)()

	if in != nil {
		// The one line an IDE's MCP log shows before anything goes wrong, and
		// which config the IDE's command line led to.
		logger.Info("serving MCP on stdin/stdout", "config", cfg.File, "plugins", len(cfg.Plugins))
		err = gw.front.ServeStdio(ctx, in, out)
	} else {
		err = gw.front.ServeHTTP(ctx, cfg.Listen.HTTP, func(a net.Addr) {
			// Which config the fallbacks led to ($TOOLGATE_CONFIG, ./toolgate.hcl
			// or the built-in example) is the first thing to check when the
			// gateway serves other plugins than expected.
			logger.Info("serving MCP", "url", fmt.Sprintf("%s://%s/mcp", scheme(cfg), a), "config", cfg.File, "plugins", len(cfg.Plugins))
			if cfg.Listen.Metrics {
				logger.Info("serving metrics", "url", fmt.Sprintf("%s://%s/metrics", scheme(cfg), a))
			}
			if ready != nil {
				ready(a)
			}
		})
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	logger.Info("shutting down", "grace", cfg.Gateway.ShutdownGrace)
	done := make(chan struct{})
	go func() {
		stopPlugins()
		gw.plugins.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(cfg.Gateway.ShutdownGrace + 5*time.Second):
		logger.Error("plugins did not stop in time")
	}
	gw.front.Close()
	return nil
}

// notRunningError says which auto_start plugin keeps the gateway from being
// ready.
type notRunningError struct {
	Plugin string
	State  supervisor.State
}

func (e *notRunningError) Error() string {
	return fmt.Sprintf("auto_start plugin %q is %s", e.Plugin, e.State)
}

// pluginsReady is the readiness of /readyz: every auto_start plugin is
// running. Lazy plugins start on the call that needs them and do not count.
func pluginsReady(cfg *config.Config, plugins *supervisor.Manager) func() error {
	var want []*supervisor.Supervisor
	for _, p := range cfg.Plugins {
		if sup, ok := plugins.Get(p.Name); ok && p.AutoStart && !p.Disabled {
			want = append(want, sup)
		}
	}
	return func() error {
		for _, sup := range want {
			if st := sup.Status(); st.State != supervisor.Running {
				return &notRunningError{Plugin: st.Name, State: st.State}
			}
		}
		return nil
	}
}

func scheme(cfg *config.Config) string {
	if cfg.Listen.TLSCert != "" {
		return "https"
	}
	return "http"
}
