package main

import "testing"

// A word that names no subcommand is a usage error, as on the root: a
// script's typo must not pass with exit status 0 having done nothing.
func TestUnknownSubcommandIsAUsageError(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "lst"}, `unknown command "lst" for "toolgate tools"; did you mean "list"?`},
		{[]string{"config", "valdate", "toolgate.hcl"}, `unknown command "valdate" for "toolgate config"; did you mean "validate"?`},
		{[]string{"resources", "fetch"}, `unknown command "fetch" for "toolgate resources"; see toolgate resources --help`},
		{[]string{"prompts", "show"}, `unknown command "show" for "toolgate prompts"`},
		{[]string{"plugin", "new"}, `unknown command "new" for "toolgate plugin"`},
		{[]string{"completion", "bsh"}, `unknown command "bsh" for "toolgate completion"; did you mean "bash"?`},
	} {
		wantExit(t, tg(t, nil, tt.args...), 2, nil, []string{tt.want})
	}
	// The group alone still shows what it holds.
	wantExit(t, tg(t, nil, "tools"), 0, []string{"Available Commands:", "describe"}, nil)
}
