package main

import (
	"strings"
	"testing"
)

// cobra's hidden __complete command is what the shell scripts call.
func TestCompletion(t *testing.T) {
	_, url := helloGateway(t)

	r := tg(t, nil, "__complete", "call", url, "x_hello_c")
	wantExit(t, r, 0, []string{"x_hello_count\tCount up to a number"}, nil)
	if strings.Contains(r.stdout, "x_hello_greet") {
		t.Errorf("completion of x_hello_c offered greet:\n%s", r.stdout)
	}
	r = tg(t, nil, "__complete", "call", url, "x_hello_count", "--arg", "")
	wantExit(t, r, 0, []string{"delay_ms=", "to="}, nil)
	r = tg(t, nil, "__complete", "plugins", "restart", url, "h")
	wantExit(t, r, 0, []string{"hello\trunning"}, nil)
	r = tg(t, nil, "__complete", "resources", "read", url, "")
	wantExit(t, r, 0, []string{"hello://readme"}, nil)
	r = tg(t, nil, "__complete", "prompts", "get", url, "x_")
	wantExit(t, r, 0, []string{"x_hello_welcome"}, nil)
	r = tg(t, nil, "completion", "bash")
	wantExit(t, r, 0, []string{"__start_toolgate"}, nil)
}
