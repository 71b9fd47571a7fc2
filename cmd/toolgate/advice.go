package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/core/client"
	"github.com/toolgate/toolgate/core/metatools"
	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/internal/similar"
)

// The gateway words its answers for an assistant, in the terms of its
// meta-tools (list_resources, core_plugin_start, a "plugin" argument). Where
// a client command can tell what went wrong from what it asked and from a
// lookup after the answer, it says so with its own commands and flags.

// failure is a gateway's refusal in the CLI's words: an error line and, when
// something helps, a hint line, then exit status 1 (see toolFailure).
type failure struct{ message, hint string }

func (f *failure) Error() string { return f.message }

// downHint says what brings back a plugin that is down, by its state; ""
// for one that is not down.
func downHint(plugin, state string) string {
	switch state {
	case "stopped":
		return fmt.Sprintf("toolgate plugins start %s starts it", plugin)
	case "failed", "restarting":
		return fmt.Sprintf("toolgate plugins status %s shows its last error; toolgate plugins restart %s tries again once it is fixed", plugin, plugin)
	}
	return ""
}

// readFailure puts a failed read of uri in the CLI's words. describe_resource
// tells a URI no plugin serves (it fails too) from one whose plugin could not
// read it; a plugin that is down gets how to bring it back. The refusal of a
// plugin that runs is passed on as it is: those are the plugin's words.
func readFailure(ctx context.Context, s *session, uri string, err error) error {
	if !isToolError(err) {
		return err
	}
	res, lookupErr := s.Meta(ctx, "describe_resource", map[string]any{"uri": uri})
	if lookupErr != nil {
		return err
	}
	if res.IsError {
		msg := fmt.Sprintf("no plugin serves resource %q", clip.Name(uri))
		if meant := resourceMeant(ctx, s, uri); meant != "" {
			msg += fmt.Sprintf("; did you mean %q?", meant)
		}
		return &failure{message: msg, hint: "toolgate resources list shows the resources and templates there are"}
	}
	var d struct {
		Plugin string `json:"plugin"`
	}
	if json.Unmarshal(res.JSON(), &d) != nil || d.Plugin == "" {
		return err
	}
	p, lookupErr := s.PluginDo(ctx, client.PluginGet, d.Plugin)
	if lookupErr != nil {
		return err
	}
	hint := downHint(p.Name, p.State)
	if hint == "" {
		return err
	}
	return &failure{message: fmt.Sprintf("cannot read resource %q: plugin %s is %s%s", clip.Name(uri), p.Name, p.State, lastError(p)), hint: hint}
}

// resourceMeant is the listed resource URI that uri is probably a typo of,
// or "".
func resourceMeant(ctx context.Context, s *session, uri string) string {
	var uris []string
	for page := (client.Page{Limit: metatools.MaxLimit}); ; page.Offset += page.Limit {
		l, err := s.ListResources(ctx, "", page)
		if err != nil {
			return ""
		}
		for _, r := range l.Resources {
			uris = append(uris, r.URI)
		}
		if !l.Truncated {
			return similar.Closest(uri, uris)
		}
	}
}

// pluginFlagFailure puts a listing's refusal of --plugin in the CLI's words
// when the plugins there are show that none has that name; any other
// refusal is passed on.
func pluginFlagFailure(ctx context.Context, s *session, plugin string, err error) error {
	if plugin == "" || !isToolError(err) {
		return err
	}
	names, lookupErr := pluginNames(ctx, s)
	if lookupErr != nil {
		return err
	}
	if slices.Contains(names, plugin) {
		return err
	}
	msg := fmt.Sprintf("--plugin %q: no plugin has that name", clip.Name(plugin))
	switch meant := similar.Closest(plugin, names); {
	case len(names) == 0:
		msg += "; the gateway has no plugins"
	case meant != "":
		msg += fmt.Sprintf("; did you mean %q? The plugins are %s.", meant, strings.Join(names, ", "))
	default:
		msg += "; the plugins are " + strings.Join(names, ", ")
	}
	return &failure{message: msg}
}

// toollessNote puts the note of a search narrowed to a plugin that has no
// tools in the CLI's words, what the plugin's state calls for, and reports
// whether it did. The gateway notes that case before any other, so it is
// the note whenever the plugin has no tools.
func toollessNote(ctx context.Context, s *session, list *client.ToolList, plugin string) bool {
	if list.Note == "" || plugin == "" || list.Total > 0 {
		return false
	}
	p, err := s.PluginDo(ctx, client.PluginGet, plugin)
	if err != nil || p.Tools > 0 {
		return false
	}
	msg := fmt.Sprintf("Plugin %q has no tools in the catalog: it is %s", p.Name, p.State)
	if p.LastError != "" {
		msg += " (" + strings.Join(strings.Fields(p.LastError), " ") + ")"
	}
	switch p.State {
	case "running":
		msg += " and offers no tools."
	case "lazy", "stopped":
		msg += fmt.Sprintf("; toolgate plugins start %s starts it and lists its tools.", p.Name)
	case "starting", "restarting":
		msg += "; its tools appear when it runs: search again shortly."
	default:
		msg += fmt.Sprintf("; toolgate plugins restart %s tries again once it is fixed.", p.Name)
	}
	list.Note = msg
	return true
}

// pastEndNote puts the note of a page past the end of a tool listing in the
// CLI's words: --offset for the gateway's offset argument.
func pastEndNote(list *client.ToolList, offset int) {
	if list.Note != "" && offset > 0 && offset >= list.Total {
		list.Note = fmt.Sprintf("--offset %d is past the end: there are %d; --offset 0 starts from the first", offset, list.Total)
	}
}
