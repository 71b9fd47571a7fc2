package main

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/client"
)

// Shell completion asks the gateway the command would talk to (its --url,
// --config and --token) for names. cobra's own `completion` command prints
// the scripts: `source <(toolgate completion bash)`.

type completer func(ctx context.Context, c *client.Client, prefix string) []string

// complete runs fn for the first positional argument only.
func complete(f *clientFlags, fn completer) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeWith(cmd, f, fn, prefix)
	}
}

func completeWith(cmd *cobra.Command, f *clientFlags, fn completer, prefix string) ([]string, cobra.ShellCompDirective) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd.SetContext(ctx)
	s, err := f.connect(cmd)
	if err != nil {
		cobra.CompErrorln(err.Error())
		return nil, cobra.ShellCompDirectiveError
	}
	defer s.Close()
	return fn(ctx, s.Client, prefix), cobra.ShellCompDirectiveNoFileComp
}

func completeTools(f *clientFlags) cobra.CompletionFunc {
	return complete(f, func(ctx context.Context, c *client.Client, prefix string) []string {
		list, err := c.FilterTools(ctx, client.Filter{Pattern: prefix + "*", Page: client.Page{Limit: 1000}})
		if err != nil {
			return nil
		}
		out := make([]string, 0, len(list.Tools))
		for _, t := range list.Tools {
			out = append(out, t.Name+"\t"+t.Summary)
		}
		return out
	})
}

func completePlugins(f *clientFlags) cobra.CompletionFunc {
	return complete(f, func(ctx context.Context, c *client.Client, prefix string) []string {
		plugins, err := c.Plugins(ctx)
		if err != nil {
			return nil
		}
		var out []string
		for _, p := range plugins {
			if strings.HasPrefix(p.Name, prefix) {
				out = append(out, p.Name+"\t"+p.State)
			}
		}
		return out
	})
}

func completeResources(f *clientFlags) cobra.CompletionFunc {
	return complete(f, func(ctx context.Context, c *client.Client, prefix string) []string {
		l, err := c.ListResources(ctx, "", client.Page{Limit: 1000})
		if err != nil {
			return nil
		}
		var out []string
		for _, r := range l.Resources {
			if strings.HasPrefix(r.URI, prefix) {
				out = append(out, r.URI+"\t"+r.Name)
			}
		}
		return out
	})
}

func completePrompts(f *clientFlags) cobra.CompletionFunc {
	return complete(f, func(ctx context.Context, c *client.Client, prefix string) []string {
		l, err := c.ListPrompts(ctx, "", client.Page{Limit: 1000})
		if err != nil {
			return nil
		}
		var out []string
		for _, p := range l.Prompts {
			if strings.HasPrefix(p.Name, prefix) {
				out = append(out, p.Name+"\t"+p.Summary)
			}
		}
		return out
	})
}

// completeArgs offers "key=" for each argument of the tool named on the
// command line.
func completeArgs(f *clientFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out, dir := completeWith(cmd, f, func(ctx context.Context, c *client.Client, prefix string) []string {
			d, err := c.DescribeTool(ctx, args[0])
			if err != nil {
				return nil
			}
			var schema struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			}
			_ = json.Unmarshal(d.InputSchema, &schema)
			var out []string
			for k, p := range schema.Properties {
				if strings.HasPrefix(k, prefix) {
					out = append(out, k+"=\t"+p.Description)
				}
			}
			sort.Strings(out)
			return out
		}, prefix)
		return out, dir | cobra.ShellCompDirectiveNoSpace
	}
}
