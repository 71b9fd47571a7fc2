package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// confirmer answers the gateway's elicitations for `toolgate call`: the
// confirmation asked before a tool that may delete or overwrite data (a
// form with no fields) is put to the user on the terminal, or accepted
// with --yes; without a terminal or --yes it is declined, saying how to
// accept it. A plugin's form with fields is declined: the command line has
// no way to fill one in.
func confirmer(in io.Reader, out io.Writer, yes bool) func(context.Context, json.RawMessage) json.RawMessage {
	terminal := false
	if f, ok := in.(*os.File); ok {
		terminal = term.IsTerminal(int(f.Fd()))
	}
	lines := bufio.NewReader(in)
	return func(_ context.Context, params json.RawMessage) json.RawMessage {
		var p struct {
			Message string `json:"message"`
			Schema  struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"requestedSchema"`
		}
		_ = json.Unmarshal(params, &p)
		answer := func(action string) json.RawMessage {
			if action == "accept" {
				return json.RawMessage(`{"action":"accept","content":{}}`)
			}
			return json.RawMessage(`{"action":"` + action + `"}`)
		}
		switch {
		case len(p.Schema.Properties) > 0:
			fmt.Fprintf(out, "toolgate: declined a form the tool asked for (the command line cannot fill one in): %s\n", p.Message)
			return answer("decline")
		case yes:
			fmt.Fprintf(out, "toolgate: confirmed (--yes): %s\n", p.Message)
			return answer("accept")
		case !terminal:
			fmt.Fprintf(out, "toolgate: declined, since stdin is not a terminal to ask on; pass --yes to confirm: %s\n", p.Message)
			return answer("decline")
		}
		fmt.Fprintf(out, "%s [y/N] ", p.Message)
		reply, err := lines.ReadString('\n')
		if err != nil && reply == "" {
			fmt.Fprintln(out)
			return answer("cancel")
		}
		if r := strings.ToLower(strings.TrimSpace(reply)); r == "y" || r == "yes" {
			return answer("accept")
		}
		return answer("decline")
	}
}
