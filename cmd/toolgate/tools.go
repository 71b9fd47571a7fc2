package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/client"
	"github.com/toolgate/toolgate/core/metatools"
)

func init() { clientCommands = append(clientCommands, toolsCmd) }

func toolsCmd() *cobra.Command {
	var f clientFlags
	c := &cobra.Command{
		Use:   "tools",
		Short: "List, search and describe the tools behind a gateway",
		Args:  cobra.NoArgs,
	}
	f.add(c)
	c.AddCommand(toolsListCmd(&f), toolsSearchCmd(&f), toolsDescribeCmd(&f))
	return c
}

func toolsListCmd(f *clientFlags) *cobra.Command {
	var (
		plugin string
		page   client.Page
	)
	c := &cobra.Command{
		Use:   "list",
		Short: "List every tool (or one plugin's) and each plugin's state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return show(cmd, f, func(ctx context.Context, s *session) (*client.ToolList, error) {
				list, err := s.ListTools(ctx, plugin, page)
				if err != nil {
					return nil, pluginFlagFailure(ctx, s, plugin, err)
				}
				pastEndNote(list, page.Offset)
				return list, nil
			}, func(list *client.ToolList) error {
				if err := toolTable(cmd, list, false); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout())
				rows := make([][]string, 0, len(list.Plugins))
				for _, p := range list.Plugins {
					rows = append(rows, []string{p.Name, p.State, fmt.Sprint(p.Tools), oneLine(p.LastError)})
				}
				return table(cmd.OutOrStdout(), []string{"PLUGIN", "STATE", "TOOLS", "LAST ERROR"}, rows)
			})
		},
	}
	c.Flags().StringVar(&plugin, "plugin", "", "only this plugin's tools")
	addPageFlags(c, &page, "tools", 1000)
	_ = c.RegisterFlagCompletionFunc("plugin", completePlugins(f))
	return c
}

func toolsSearchCmd(f *clientFlags) *cobra.Command {
	var (
		filter client.Filter
		labels []string
	)
	c := &cobra.Command{
		Use:   "search [QUERY]",
		Short: "Find tools for a task, best first (or filter by --pattern, --description-filter, --label, --plugin)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				filter.Query = args[0]
			}
			// Refused here, as the gateway would, in the CLI's words.
			if n := utf8.RuneCountInString(filter.Query); n > metatools.MaxQueryLen {
				return fmt.Errorf("QUERY is %d characters long; at most %d: say in a few words what the tool should do", n, metatools.MaxQueryLen)
			}
			if _, err := path.Match(filter.Pattern, ""); err != nil {
				return fmt.Errorf("--pattern %q: %v; want a glob on tool names, such as 'x_k8s_*'", filter.Pattern, err)
			}
			var err error
			if filter.Labels, err = keyValues("--label", labels); err != nil {
				return err
			}
			return show(cmd, f, func(ctx context.Context, s *session) (*client.ToolList, error) {
				list, err := s.FilterTools(ctx, filter)
				if err != nil {
					return nil, pluginFlagFailure(ctx, s, filter.Plugin, err)
				}
				if !toollessNote(ctx, s, list, filter.Plugin) {
					pastEndNote(list, filter.Offset)
				}
				return list, nil
			}, func(list *client.ToolList) error {
				return toolTable(cmd, list, filter.Query != "")
			})
		},
	}
	c.Flags().StringVar(&filter.Pattern, "pattern", "", "glob on tool names, e.g. 'x_k8s_*'")
	c.Flags().StringVar(&filter.DescriptionFilter, "description-filter", "", "text the tool's description must contain")
	c.Flags().BoolVar(&filter.CaseSensitive, "case-sensitive", false, "match --pattern and --description-filter case-sensitively")
	c.Flags().BoolVar(&filter.IncludeSchema, "include-schema", false, "include each tool's input schema (shown with -o json)")
	c.Flags().StringVar(&filter.Plugin, "plugin", "", "only this plugin's tools")
	c.Flags().StringArrayVar(&labels, "label", nil, "key=value label the tool must carry (repeatable)")
	addPageFlags(c, &filter.Page, "tools", 10)
	_ = c.RegisterFlagCompletionFunc("plugin", completePlugins(f))
	return c
}

func toolTable(cmd *cobra.Command, list *client.ToolList, scored bool) error {
	header := []string{"NAME", "PLUGIN", "SUMMARY"}
	if scored {
		header = []string{"NAME", "SCORE", "PLUGIN", "SUMMARY"}
	}
	rows := make([][]string, 0, len(list.Tools))
	for _, t := range list.Tools {
		row := []string{t.Name, t.Plugin, t.Summary}
		if scored {
			score := ""
			if t.Score != nil {
				score = fmt.Sprintf("%.3f", *t.Score)
			}
			row = []string{t.Name, score, t.Plugin, t.Summary}
		}
		rows = append(rows, row)
	}
	w := cmd.OutOrStdout()
	if len(rows) > 0 || list.Note == "" {
		if err := table(w, header, rows); err != nil {
			return err
		}
	}
	if list.Truncated {
		fmt.Fprintf(w, "(%d of %d shown; use --limit and --offset for more)\n", len(list.Tools), list.Total)
	}
	if list.Note == "" {
		return nil
	}
	if len(rows) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, list.Note)
	if !scored {
		return nil
	}
	if len(list.Plugins) > 0 {
		rows := make([][]string, 0, len(list.Plugins))
		for _, p := range list.Plugins {
			rows = append(rows, []string{p.Name, fmt.Sprint(p.Tools), strings.Join(p.About, ", ")})
		}
		fmt.Fprintln(w)
		if err := table(w, []string{"PLUGIN", "TOOLS", "ABOUT"}, rows); err != nil {
			return err
		}
	}
	if len(list.Unavailable) > 0 {
		rows := make([][]string, 0, len(list.Unavailable))
		for _, p := range list.Unavailable {
			// Whole: the reason is at the end of the error.
			rows = append(rows, []string{p.Name, p.State, strings.Join(strings.Fields(p.LastError), " ")})
		}
		fmt.Fprintln(w)
		return table(w, []string{"UNAVAILABLE", "STATE", "LAST ERROR"}, rows)
	}
	return nil
}

func toolsDescribeCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:               "describe NAME",
		Short:             "Show a tool's description, arguments, annotations and a call example",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeTools(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkName(args[0], "tool", "toolgate tools list"); err != nil {
				return err
			}
			return show(cmd, f, func(ctx context.Context, s *session) (*client.ToolDescription, error) {
				d, err := s.DescribeTool(ctx, args[0])
				return d, toolLookupFailure(ctx, s, "describe", args[0], err)
			}, func(d *client.ToolDescription) error {
				return describeText(cmd, d)
			})
		},
	}
}

func describeText(cmd *cobra.Command, d *client.ToolDescription) error {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s  (plugin %s", d.Name, d.Plugin)
	var ps struct {
		State string `json:"state"`
	}
	if json.Unmarshal(d.PluginState, &ps) == nil && ps.State != "" {
		fmt.Fprintf(w, ", %s", ps.State)
	}
	fmt.Fprintf(w, ")\n\n%s\n\n", strings.TrimSpace(d.Description))

	var schema struct {
		Properties map[string]struct {
			Type        any               `json:"type"`
			Description string            `json:"description"`
			Enum        []json.RawMessage `json:"enum"`
			Default     json.RawMessage   `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(d.InputSchema, &schema)
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	rows := make([][]string, 0, len(names))
	for _, n := range names {
		p := schema.Properties[n]
		req := ""
		for _, r := range schema.Required {
			if r == n {
				req = "yes"
			}
		}
		typ := fmt.Sprint(p.Type)
		if len(p.Enum) > 0 {
			values := make([]string, len(p.Enum))
			for i, v := range p.Enum {
				values[i] = string(v)
			}
			typ += " (" + strings.Join(values, "|") + ")"
		}
		desc := p.Description
		if len(p.Default) > 0 {
			desc = strings.TrimSpace(desc + " Default: " + string(p.Default) + ".")
		}
		rows = append(rows, []string{n, typ, req, oneLine(desc)})
	}
	if len(rows) > 0 {
		if err := table(w, []string{"ARGUMENT", "TYPE", "REQUIRED", "DESCRIPTION"}, rows); err != nil {
			return err
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprint(w, "No arguments.\n\n")
	}
	var flags []string
	for _, k := range []string{"read_only", "destructive", "idempotent", "open_world"} {
		if v, ok := d.Annotations[k].(bool); ok && v {
			flags = append(flags, strings.ReplaceAll(k, "_", "-"))
		}
	}
	if len(flags) > 0 {
		fmt.Fprintf(w, "Annotations: %s\n", strings.Join(flags, ", "))
	}
	fmt.Fprintf(w, "Example: toolgate call %s%s\n", d.Name, exampleArgs(d.Example))
	return nil
}

// exampleArgs renders describe_tool's example arguments as --arg flags.
func exampleArgs(example json.RawMessage) string {
	var ex struct {
		Arguments struct {
			Arguments map[string]json.RawMessage `json:"arguments"`
		} `json:"arguments"`
	}
	if json.Unmarshal(example, &ex) != nil {
		return ""
	}
	keys := make([]string, 0, len(ex.Arguments.Arguments))
	for k := range ex.Arguments.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		v := string(ex.Arguments.Arguments[k])
		var s string
		if json.Unmarshal(ex.Arguments.Arguments[k], &s) == nil {
			v = s
		}
		out += fmt.Sprintf(" --arg '%s=%s'", k, v)
	}
	return out
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		return string(r[:97]) + "..."
	}
	return s
}

// keyValues parses repeated k=v flag values.
func keyValues(flag string, values []string) (map[string]string, error) {
	if len(values) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(values))
	for _, kv := range values {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q: want key=value", flag, kv)
		}
		out[k] = v
	}
	return out, nil
}
