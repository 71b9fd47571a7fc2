package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/client"
	"github.com/toolgate/toolgate/core/metatools"
	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/internal/similar"
)

// A name the gateway refuses (a tool, a plugin, a prompt) and a call it
// could not make are put in the CLI's words the way advice.go puts
// resources and listings: from what the command asked and lookups after
// the refusal. A refusal no lookup explains, such as a plugin stopping
// because the gateway is shutting down, is the gateway's answer and is
// passed on as it is: the lookups may no longer reach a gateway that did.

// searchHint points at the commands that find a tool.
const searchHint = `toolgate tools search "what it should do" finds tools by what they do; toolgate tools list lists them all`

// toolLookupFailure puts describe_tool's refusal of name, looked up to
// verb it (call, describe), in the CLI's words when a lookup tells why:
// its plugin is down and never told its tools, or no tool has the name.
func toolLookupFailure(ctx context.Context, s *session, verb, name string, err error) error {
	if !isToolError(err) {
		return err
	}
	if plugin, ok := catalog.PluginOf(name); ok {
		p, lookupErr := s.PluginDo(ctx, client.PluginGet, plugin)
		if lookupErr != nil && !isToolError(lookupErr) {
			return err
		}
		// A plugin with no tools that is down or starting is why the name
		// is unknown. Stopped, it may have been stopped by an operator or
		// by the gateway shutting down, which look the same here: the
		// gateway's answer says which.
		if lookupErr == nil && p.Tools == 0 {
			switch p.State {
			case "failed", "restarting":
				return &failure{message: fmt.Sprintf("cannot %s %s: plugin %s is %s, so its tools are not known%s",
					verb, clip.Name(name), p.Name, p.State, lastError(p)), hint: downHint(p.Name, p.State)}
			case "starting":
				return &failure{message: fmt.Sprintf("cannot %s %s: plugin %s is still starting, so its tools are not known yet", verb, clip.Name(name), p.Name),
					hint: fmt.Sprintf("toolgate plugins status %s shows its state; try again once it runs", p.Name)}
			case "running", "lazy":
				// It told its tools, and this is none of them.
			default:
				return err
			}
		}
	}
	names, lookupErr := toolNames(ctx, s)
	if lookupErr != nil || slices.Contains(names, name) {
		return err
	}
	return &failure{message: fmt.Sprintf("no tool named %q%s", clip.Name(name), didYouMean(closest(name, names, 3))), hint: searchHint}
}

// callFailure puts a call the gateway could not make in the CLI's words,
// from the outcome it marks the answer with and a lookup of the tool's
// plugin; nil for the tool's own answer, and for a failure the CLI has no
// better words for. timeout is --timeout, 0 when not given.
func callFailure(ctx context.Context, s *session, d *client.ToolDescription, res *client.ToolResult, timeout time.Duration) *failure {
	switch outcome(res) {
	case metatools.OutcomeTimeout:
		msg := fmt.Sprintf("the call to %s ran out of time", d.Name)
		if timeout > 0 {
			msg += fmt.Sprintf(" (--timeout %s)", timeout)
		}
		return &failure{message: msg, hint: "--timeout (such as --timeout 5m) allows it longer"}
	case metatools.OutcomeUnavailable:
		p, err := s.PluginDo(ctx, client.PluginGet, d.Plugin)
		if err != nil {
			return nil
		}
		hint := downHint(p.Name, p.State)
		// Stopped during the call may be the gateway shutting down, whose
		// answer is passed on; stopped before it, an operator's stop.
		var before struct {
			State string `json:"state"`
		}
		_ = json.Unmarshal(d.PluginState, &before)
		if hint == "" || (p.State == "stopped" && before.State != "stopped") {
			return nil
		}
		return &failure{message: fmt.Sprintf("cannot call %s: plugin %s is %s%s", d.Name, p.Name, p.State, lastError(p)), hint: hint}
	}
	return nil
}

// outcome is how the gateway marks a call_tool answer it made itself, or
// "" for the tool's own.
func outcome(res *client.ToolResult) metatools.Outcome {
	var meta struct {
		Outcome metatools.Outcome `json:"toolgate/outcome"`
	}
	_ = json.Unmarshal(res.Meta, &meta)
	return meta.Outcome
}

// pluginFailure puts the gateway's refusal to act on the plugin named
// name in the CLI's words: no plugin has that name (with the closest), or
// the state the plugin was left in.
func pluginFailure(ctx context.Context, s *session, action client.PluginAction, name string, err error) error {
	if !isToolError(err) {
		return err
	}
	names, lookupErr := pluginNames(ctx, s)
	if lookupErr != nil {
		return err
	}
	if !slices.Contains(names, name) {
		return &failure{message: fmt.Sprintf("no plugin named %q%s", clip.Name(name), didYouMean(closest(name, names, 1))),
			hint: "toolgate plugins list shows the plugins there are"}
	}
	p, lookupErr := s.PluginDo(ctx, client.PluginGet, name)
	if lookupErr != nil {
		return err
	}
	return &failure{message: fmt.Sprintf("cannot %s plugin %s: it is %s%s", action, p.Name, p.State, lastError(p)), hint: downHint(p.Name, p.State)}
}

// promptFailure puts get_prompt's refusal of name with args in the CLI's
// words when a lookup tells why: no prompt has that name, an --arg names
// none of its arguments, or one it requires is missing.
func promptFailure(ctx context.Context, s *session, name string, args map[string]string, err error) error {
	if !isToolError(err) {
		return err
	}
	var names []string
	for page := (client.Page{Limit: metatools.MaxLimit}); ; page.Offset += page.Limit {
		l, lookupErr := s.ListPrompts(ctx, "", page)
		if lookupErr != nil {
			return err
		}
		for _, p := range l.Prompts {
			names = append(names, p.Name)
		}
		if !l.Truncated {
			break
		}
	}
	if !slices.Contains(names, name) {
		return &failure{message: fmt.Sprintf("no prompt named %q%s", clip.Name(name), didYouMean(closest(name, names, 3))),
			hint: "toolgate prompts list shows the prompts there are"}
	}
	res, lookupErr := s.Meta(ctx, "describe_prompt", map[string]any{"name": name})
	var d struct {
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	if lookupErr != nil || res.IsError || json.Unmarshal(res.JSON(), &d) != nil {
		return err
	}
	declared := make([]string, 0, len(d.Arguments))
	for _, a := range d.Arguments {
		declared = append(declared, a.Name)
	}
	// A misspelt key first: it is why a required one is missing.
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if !slices.Contains(declared, k) {
			msg := fmt.Sprintf("--arg %s: prompt %s takes no arguments", k, name)
			if len(declared) > 0 {
				msg = fmt.Sprintf("--arg %s: prompt %s has no argument named %q; its arguments: %s", k, name, k, strings.Join(declared, ", "))
			}
			return &failure{message: msg}
		}
	}
	for _, a := range d.Arguments {
		if _, given := args[a.Name]; a.Required && !given {
			return &failure{message: fmt.Sprintf("prompt %s requires --arg %s=VALUE", name, a.Name)}
		}
	}
	return err
}

// checkName refuses an empty NAME of a what before any call: the
// gateway's refusal would name its meta-tool's argument. lister is the
// command that shows the names there are.
func checkName(name, what, lister string) error {
	if name == "" {
		return fmt.Errorf(`NAME "": want a %s's name, as %s shows them`, what, lister)
	}
	return nil
}

// toolNames are the names of every tool in the gateway's catalog.
func toolNames(ctx context.Context, s *session) ([]string, error) {
	var names []string
	for page := (client.Page{Limit: metatools.MaxLimit}); ; page.Offset += page.Limit {
		l, err := s.ListTools(ctx, "", page)
		if err != nil {
			return nil, err
		}
		for _, t := range l.Tools {
			names = append(names, t.Name)
		}
		if !l.Truncated {
			return names, nil
		}
	}
}

// pluginNames are the names of the gateway's plugins.
func pluginNames(ctx context.Context, s *session) ([]string, error) {
	plugins, err := s.Plugins(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(plugins))
	for _, p := range plugins {
		names = append(names, p.Name)
	}
	return names, nil
}

// closest lists up to n of names that given is probably a typo of,
// closest first.
func closest(given string, names []string, n int) []string {
	rest := slices.Clone(names)
	var out []string
	for len(out) < n {
		c := similar.Closest(given, rest)
		if c == "" {
			break
		}
		out = append(out, c)
		rest = slices.DeleteFunc(rest, func(s string) bool { return s == c })
	}
	return out
}

// didYouMean asks about the names given meant, or is "" for none.
func didYouMean(near []string) string {
	if len(near) == 0 {
		return ""
	}
	quoted := make([]string, len(near))
	for i, n := range near {
		quoted[i] = strconv.Quote(n)
	}
	if len(quoted) == 1 {
		return "; did you mean " + quoted[0] + "?"
	}
	return "; did you mean " + strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1] + "?"
}

// lastError is ": " and a plugin's last error on one line, or "".
func lastError(p *client.Plugin) string {
	if p.LastError == "" {
		return ""
	}
	return ": " + strings.Join(strings.Fields(p.LastError), " ")
}
