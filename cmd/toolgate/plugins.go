package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/client"
)

func init() { clientCommands = append(clientCommands, pluginsCmd) }

func pluginsCmd() *cobra.Command {
	var f clientFlags
	status := func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			if err := checkName(args[0], "plugin", "toolgate plugins list"); err != nil {
				return err
			}
		}
		s, err := f.connect(cmd)
		if err != nil {
			return err
		}
		defer s.Close()
		var plugins []client.Plugin
		if len(args) == 1 {
			p, err := s.PluginDo(cmd.Context(), client.PluginGet, args[0])
			if err != nil {
				return toolFailure(cmd, pluginFailure(cmd.Context(), s, client.PluginGet, args[0], err))
			}
			plugins = []client.Plugin{*p}
		} else if plugins, err = s.Plugins(cmd.Context()); err != nil {
			return toolFailure(cmd, err)
		}
		if f.json() {
			return printJSON(cmd.OutOrStdout(), plugins)
		}
		if err := pluginTable(cmd, plugins); err != nil {
			return err
		}
		// The table has room for one line of the last error; asked about
		// one plugin, show all of it (a config error names every problem).
		if len(args) == 1 && plugins[0].LastError != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "\nlast error:\n  %s\n", strings.ReplaceAll(strings.TrimSpace(plugins[0].LastError), "\n", "\n  "))
		}
		return nil
	}
	c := &cobra.Command{
		Use:   "plugins [list | status [NAME] | start|stop|restart NAME]",
		Short: "Show plugins' state, or start, stop or restart one",
		Args:  cobra.NoArgs,
		RunE:  status,
	}
	f.add(c)
	c.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "Show every plugin's state",
		Args:  cobra.NoArgs,
		RunE:  status,
	}, &cobra.Command{
		Use:               "status [NAME]",
		Short:             "Show every plugin's state, or one plugin's",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: completePlugins(&f),
		RunE:              status,
	})
	for _, a := range []struct {
		action client.PluginAction
		short  string
	}{
		{client.PluginStart, "Start a lazy or stopped plugin and wait until it runs"},
		{client.PluginStop, "Stop a plugin (its tools stay listed; calls are refused until it starts again)"},
		{client.PluginRestart, "Restart a plugin, closing an open circuit breaker"},
	} {
		c.AddCommand(&cobra.Command{
			Use:               string(a.action) + " NAME",
			Short:             a.short,
			Args:              cobra.ExactArgs(1),
			ValidArgsFunction: completePlugins(&f),
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := checkName(args[0], "plugin", "toolgate plugins list"); err != nil {
					return err
				}
				return show(cmd, &f, func(ctx context.Context, s *session) (*client.Plugin, error) {
					p, err := s.PluginDo(ctx, a.action, args[0])
					return p, pluginFailure(ctx, s, a.action, args[0], err)
				}, func(p *client.Plugin) error {
					return pluginTable(cmd, []client.Plugin{*p})
				})
			},
		})
	}
	return c
}

func pluginTable(cmd *cobra.Command, plugins []client.Plugin) error {
	rows := make([][]string, 0, len(plugins))
	for _, p := range plugins {
		pid, uptime := "", ""
		if p.Pid != 0 {
			pid = fmt.Sprint(p.Pid)
			uptime = (time.Duration(p.UptimeSeconds) * time.Second).String()
		}
		rows = append(rows, []string{p.Name, p.State, fmt.Sprint(p.Tools), pid, uptime, fmt.Sprint(p.Restarts), oneLine(p.LastError)})
	}
	w := cmd.OutOrStdout()
	if err := table(w, []string{"PLUGIN", "STATE", "TOOLS", "PID", "UPTIME", "RESTARTS", "LAST ERROR"}, rows); err != nil {
		return err
	}
	// A tool left out for a taken name is missing without any error: say so
	// under the table, whole, since each names the other party.
	for _, p := range plugins {
		if len(p.Collisions) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nleft out of plugin %s (name taken):\n", p.Name)
		for _, c := range p.Collisions {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	return nil
}
