package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/client"
)

func init() { clientCommands = append(clientCommands, resourcesCmd) }

func resourcesCmd() *cobra.Command {
	var f clientFlags
	c := &cobra.Command{
		Use:   "resources",
		Short: "List and read the resources plugins serve",
		Args:  cobra.NoArgs,
	}
	f.add(c)

	var (
		plugin string
		page   client.Page
	)
	list := &cobra.Command{
		Use:   "list",
		Short: "List resources and resource templates",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return show(cmd, &f, func(ctx context.Context, s *session) (*client.ResourceList, error) {
				l, err := s.ListResources(ctx, plugin, page)
				return l, pluginFlagFailure(ctx, s, plugin, err)
			}, func(l *client.ResourceList) error {
				rows := make([][]string, 0, len(l.Resources))
				for _, r := range l.Resources {
					rows = append(rows, []string{r.URI, r.Name, r.Plugin, r.MIMEType, oneLine(r.Description)})
				}
				if err := table(cmd.OutOrStdout(), []string{"URI", "NAME", "PLUGIN", "MIME TYPE", "DESCRIPTION"}, rows); err != nil {
					return err
				}
				if len(l.Templates) > 0 {
					rows = rows[:0]
					for _, t := range l.Templates {
						rows = append(rows, []string{t.URITemplate, t.Name, t.Plugin, oneLine(t.Description)})
					}
					fmt.Fprintln(cmd.OutOrStdout())
					return table(cmd.OutOrStdout(), []string{"URI TEMPLATE", "NAME", "PLUGIN", "DESCRIPTION"}, rows)
				}
				return nil
			})
		},
	}
	list.Flags().StringVar(&plugin, "plugin", "", "only this plugin's resources")
	addPageFlags(list, &page, "resources", 1000)
	_ = list.RegisterFlagCompletionFunc("plugin", completePlugins(&f))

	var outDir string
	read := &cobra.Command{
		Use:               "read URI",
		Short:             "Print a resource's text; binary contents are saved under --out",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeResources(&f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "" {
				return errors.New(`URI "": want a resource's URI, as toolgate resources list shows them`)
			}
			s, err := f.connect(cmd)
			if err != nil {
				return err
			}
			defer s.Close()
			contents, err := s.ReadResource(cmd.Context(), args[0])
			if err != nil {
				return toolFailure(cmd, readFailure(cmd.Context(), s, args[0], err))
			}
			for i := range contents {
				rc := &contents[i]
				if rc.Blob == "" || outDir == "" {
					continue
				}
				c := client.Content{Type: "resource", Resource: rc}
				path, err := saveBinary(&c, outDir, fmt.Sprintf("resource-%d", i+1))
				if err != nil {
					return err
				}
				if !f.json() {
					fmt.Fprintln(cmd.OutOrStdout(), binaryLine(&c, path))
				}
				rc.Blob = ""
			}
			if f.json() {
				return printJSON(cmd.OutOrStdout(), contents)
			}
			for i := range contents {
				rc := &contents[i]
				switch {
				case rc.Text != "":
					fmt.Fprintln(cmd.OutOrStdout(), rc.Text)
				case rc.Blob != "":
					fmt.Fprintln(cmd.OutOrStdout(), binaryLine(&client.Content{Type: "resource", Resource: rc}, ""))
				}
			}
			return nil
		},
	}
	read.Flags().StringVar(&outDir, "out", "", "save binary contents into this directory")
	_ = read.MarkFlagDirname("out")
	c.AddCommand(list, read)
	return c
}
