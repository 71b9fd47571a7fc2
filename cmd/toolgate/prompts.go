package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/client"
)

func init() { clientCommands = append(clientCommands, promptsCmd) }

func promptsCmd() *cobra.Command {
	var f clientFlags
	c := &cobra.Command{
		Use:   "prompts",
		Short: "List prompt templates and render one",
		Args:  cobra.NoArgs,
	}
	f.add(c)

	var (
		plugin string
		page   client.Page
	)
	list := &cobra.Command{
		Use:   "list",
		Short: "List prompt templates",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return show(cmd, &f, func(ctx context.Context, s *session) (*client.PromptList, error) {
				l, err := s.ListPrompts(ctx, plugin, page)
				return l, pluginFlagFailure(ctx, s, plugin, err)
			}, func(l *client.PromptList) error {
				rows := make([][]string, 0, len(l.Prompts))
				for _, p := range l.Prompts {
					rows = append(rows, []string{p.Name, p.Plugin, p.Summary})
				}
				return table(cmd.OutOrStdout(), []string{"NAME", "PLUGIN", "SUMMARY"}, rows)
			})
		},
	}
	list.Flags().StringVar(&plugin, "plugin", "", "only this plugin's prompts")
	addPageFlags(list, &page, "prompts", 1000)
	_ = list.RegisterFlagCompletionFunc("plugin", completePlugins(&f))

	var args []string
	get := &cobra.Command{
		Use:               "get NAME [--arg key=value ...]",
		Short:             "Render a prompt template into messages",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completePrompts(&f),
		RunE: func(cmd *cobra.Command, pos []string) error {
			if err := checkName(pos[0], "prompt", "toolgate prompts list"); err != nil {
				return err
			}
			in, err := keyValues("--arg", args)
			if err != nil {
				return err
			}
			return show(cmd, &f, func(ctx context.Context, s *session) (*client.Prompt, error) {
				p, err := s.GetPrompt(ctx, pos[0], in)
				return p, promptFailure(ctx, s, pos[0], in, err)
			}, func(p *client.Prompt) error {
				if p.Description != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "# %s\n", p.Description)
				}
				for _, m := range p.Messages {
					text := m.Content.Text
					if m.Content.Type != "text" {
						text = fmt.Sprintf("[%s content]", m.Content.Type)
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%s: %s\n", m.Role, text)
				}
				return nil
			})
		},
	}
	get.Flags().StringArrayVar(&args, "arg", nil, "prompt argument key=value (repeatable)")
	c.AddCommand(list, get)
	return c
}
