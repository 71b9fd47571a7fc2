package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// parseErr parses src as toolgate.hcl and returns the *Error it must fail with.
func parseErr(t *testing.T, src string) *Error {
	t.Helper()
	c, err := Parse([]byte(src), "toolgate.hcl")
	if err == nil {
		t.Fatalf("Parse succeeded with %+v; want an error for:\n%s", c, src)
	}
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("error %T %v is not a *config.Error", err, err)
	}
	return cerr
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "unknown attribute",
			src:  "listen {\n  tokn = \"x\"\n}",
			want: `toolgate.hcl:2:3: Unsupported argument; An argument named "tokn" is not expected here. Did you mean "token"?`,
		},
		{
			name: "unknown block",
			src:  "plugins \"x\" {}",
			want: `toolgate.hcl:1:1: Unsupported block type; Blocks of type "plugins" are not expected here. Did you mean "plugin"?`,
		},
		{
			name: "unknown plugin attribute",
			src:  "plugin \"x\" {\n  type = \"prometheus\"\n  auto_strat = true\n}",
			want: `toolgate.hcl:3:3: Unsupported argument; An argument named "auto_strat" is not expected here. Did you mean "auto_start"?`,
		},
		{
			name: "gateway setting at the top level",
			src:  "state_dir = \"x\"",
			want: `toolgate.hcl:1:1: Unsupported argument; An argument named "state_dir" is not expected here. It belongs in the gateway block.`,
		},
		{
			name: "setting of two blocks in a third",
			src:  "telemetry {\n  call_timeout = \"3s\"\n}",
			want: `toolgate.hcl:2:3: Unsupported argument; An argument named "call_timeout" is not expected here. It belongs in the gateway block or a plugin block.`,
		},
		{
			name: "oauth block outside listen",
			src:  "oauth {\n}",
			want: `toolgate.hcl:1:1: Unsupported block type; Blocks of type "oauth" are not expected here. It belongs in the listen block.`,
		},
		{
			name: "unknown plugin type with suggestion",
			src:  "plugin \"everything\" {\n  type = \"mcp-stdoi\"\n}",
			want: `toolgate.hcl:2:10: unknown plugin type "mcp-stdoi"; did you mean "mcp-stdio"?`,
		},
		{
			name: "unknown plugin type without suggestion",
			src:  "plugin \"x\" {\n  type = \"docker\"\n}",
			want: `toolgate.hcl:2:10: unknown plugin type "docker"; use one of mcp-stdio, prometheus, kubernetes`,
		},
		{
			name: "neither type nor path",
			src:  "\nplugin \"x\" {\n  auto_start = true\n}",
			want: `toolgate.hcl:2:1: plugin "x" needs type (a built-in: mcp-stdio, prometheus, kubernetes) or path (an executable built with the SDK)`,
		},
		{
			name: "both type and path",
			src:  "plugin \"x\" {\n  type = \"prometheus\"\n  path = \"./x\"\n}",
			want: `toolgate.hcl:3:10: plugin "x" sets both type and path; keep type for a built-in or path for an SDK executable`,
		},
		{
			name: "empty path",
			src:  "plugin \"x\" {\n  path = \"\"\n}",
			want: `toolgate.hcl:2:10: plugin "x" has an empty path`,
		},
		{
			name: "args on a built-in",
			src:  "plugin \"x\" {\n  type = \"mcp-stdio\"\n  args = [\"-y\"]\n}",
			want: `toolgate.hcl:3:10: args applies only to path executables; a built-in plugin takes its arguments in its config block`,
		},
		{
			name: "duplicate plugin names",
			src:  "plugin \"prom\" {\n  type = \"prometheus\"\n}\n\nplugin \"prom\" {\n  type = \"prometheus\"\n}",
			want: `toolgate.hcl:5:8: duplicate plugin name "prom"; first defined at toolgate.hcl:1:8`,
		},
		{
			name: "invalid plugin name",
			src:  "plugin \"My_Plugin\" {\n  type = \"prometheus\"\n}",
			want: `toolgate.hcl:1:8: invalid plugin name "My_Plugin": use lowercase letters, digits and "-", starting with a letter or digit; did you mean "my-plugin"?`,
		},
		{
			name: "invalid plugin name without suggestion",
			src:  "plugin \"--\" {\n  type = \"prometheus\"\n}",
			want: `toolgate.hcl:1:8: invalid plugin name "--": use lowercase letters, digits and "-", starting with a letter or digit`,
		},
		{
			name: "plugin name too long for tool names",
			src:  "plugin \"" + strings.Repeat("k8s-", 11) + "x\" {\n  type = \"kubernetes\"\n}",
			want: `toolgate.hcl:1:8: plugin name "` + strings.Repeat("k8s-", 11) + `x" is 45 characters long; at most 40 fit, so that its tools' names (x_<plugin>_<tool>) stay within MCP's 64 characters and apart from other plugins' tools; did you mean "` + strings.Repeat("k8s-", 9) + `k8s"?`,
		},
		{
			name: "bad duration",
			src:  "gateway {\n  call_timeout = \"5x\"\n}",
			want: `toolgate.hcl:2:18: invalid duration "5x" for call_timeout; write a number with a unit, such as "30s", "5m" or "1h30m"`,
		},
		{
			name: "zero max_call_timeout",
			src:  "gateway {\n  max_call_timeout = \"0s\"\n}",
			want: `toolgate.hcl:2:22: max_call_timeout must be greater than zero`,
		},
		{
			name: "duration without unit",
			src:  "plugin \"x\" {\n  type = \"prometheus\"\n  idle_timeout = 30\n}",
			want: `toolgate.hcl:3:18: invalid duration "30" for idle_timeout; write a number with a unit, such as "30s", "5m" or "1h30m"`,
		},
		{
			name: "negative duration",
			src:  "plugin \"x\" {\n  type = \"prometheus\"\n  call_timeout = \"-1s\"\n}",
			want: `toolgate.hcl:3:18: call_timeout must not be negative`,
		},
		{
			name: "zero gateway call timeout",
			src:  "gateway {\n  call_timeout = \"0s\"\n}",
			want: `toolgate.hcl:2:18: call_timeout must be greater than zero`,
		},
		{
			name: "fractional max_request_bytes reported once",
			src:  "gateway {\n  max_request_bytes = 1.5\n}",
			want: `toolgate.hcl:2:23: Unsuitable value type; Unsuitable value: value must be a whole number, between -9223372036854775808 and 9223372036854775807`,
		},
		{
			name: "string max_request_bytes reported once",
			src:  "gateway {\n  max_request_bytes = \"4MiB\"\n}",
			want: `toolgate.hcl:2:24: Unsuitable value type; Unsuitable value: a number is required`,
		},
		{
			name: "zero max_request_bytes",
			src:  "gateway {\n  max_request_bytes = 0\n}",
			want: `toolgate.hcl:2:23: max_request_bytes must be greater than zero`,
		},
		{
			name: "max_request_bytes above what a plugin connection carries",
			src:  "gateway {\n  max_request_bytes = 100000000\n}",
			want: `toolgate.hcl:2:23: max_request_bytes 100000000 is above 33554432 (32 MiB), the most a call's arguments may carry to a plugin`,
		},
		{
			name: "unknown log level",
			src:  "gateway {\n  log_level = \"inf\"\n}",
			want: `toolgate.hcl:2:15: unknown log_level "inf"; did you mean "info"?`,
		},
		{
			name: "bad listen address",
			src:  "listen {\n  http = \"8700\"\n}",
			want: `toolgate.hcl:2:10: invalid listen address "8700"; write host:port, such as "127.0.0.1:8700"`,
		},
		{
			name: "bad listen port",
			src:  "listen {\n  http = \"127.0.0.1:http\"\n}",
			want: `toolgate.hcl:2:10: invalid port "http" in listen address "127.0.0.1:http"`,
		},
		{
			name: "tls cert without key",
			src:  "listen {\n  tls_cert = \"c.pem\"\n}",
			want: `toolgate.hcl:2:14: tls_cert is set without tls_key; set both or neither`,
		},
		{
			name: "wrong value type",
			src:  "plugin \"x\" {\n  type = \"prometheus\"\n  auto_start = \"sometimes\"\n}",
			want: `toolgate.hcl:3:17: Unsuitable value type; Unsuitable value: a bool is required`,
		},
		{
			name: "duplicate listen block",
			src:  "listen {}\nlisten {}",
			want: `toolgate.hcl:2:1: Duplicate listen block; Only one listen block is allowed. Another was defined at toolgate.hcl:1,1-7.`,
		},
		{
			name: "config argument and block of one name",
			src:  "plugin \"x\" {\n  type = \"prometheus\"\n  config {\n    tls = {}\n    tls {}\n  }\n}",
			want: `toolgate.hcl:5:5: "tls" is set both as an argument and as a block`,
		},
		{
			name: "config blocks with mixed labels",
			src:  "plugin \"x\" {\n  type = \"prometheus\"\n  config {\n    up \"a\" {}\n    up {}\n  }\n}",
			want: `toolgate.hcl:5:5: "up" blocks must all have the same number of labels`,
		},
		{
			name: "variables are not allowed",
			src:  "plugin \"x\" {\n  type = var.t\n}",
			want: `toolgate.hcl:2:10: Variables not allowed; Variables may not be used here.`,
		},
		{
			name: "unknown function",
			src:  "plugin \"x\" {\n  type = lowr(\"X\")\n}",
			want: `toolgate.hcl:2:10: Call to unknown function; There is no function named "lowr". Did you mean "lower"?`,
		},
		{
			name: "syntax error",
			src:  "listen {\n  http = \n}",
			want: `toolgate.hcl:2:10: Invalid expression; Expected the start of an expression, but found an invalid expression token.`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseErr(t, tt.src).Error(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestParseErrorsAllAtOnce checks that one pass reports every problem, in file order, so
// an operator fixes a file in one round.
func TestParseErrorsAllAtOnce(t *testing.T) {
	src := `listen {
  http = "nope"
}
gateway {
  shutdown_grace = "5x"
  log_level      = "verbose"
}
plugin "a" {
  type = "prometheus"
}
plugin "a" {
  type = "prometeus"
}
plugin "B" {
  path = "./b"
  type = "kubernetes"
}
plugin "c" {
  config {
    token = env("TOOLGATE_TEST_SURELY_UNSET")
  }
}
`
	want := []string{
		`toolgate.hcl:2:10: invalid listen address "nope"; write host:port, such as "127.0.0.1:8700"`,
		`toolgate.hcl:5:20: invalid duration "5x" for shutdown_grace; write a number with a unit, such as "30s", "5m" or "1h30m"`,
		`toolgate.hcl:6:20: unknown log_level "verbose"; use one of trace, debug, info, warn, error, off`,
		`toolgate.hcl:11:8: duplicate plugin name "a"; first defined at toolgate.hcl:8:8`,
		`toolgate.hcl:12:10: unknown plugin type "prometeus"; did you mean "prometheus"?`,
		`toolgate.hcl:14:8: invalid plugin name "B": use lowercase letters, digits and "-", starting with a letter or digit; did you mean "b"?`,
		`toolgate.hcl:15:10: plugin "B" sets both type and path; keep type for a built-in or path for an SDK executable`,
		`toolgate.hcl:18:1: plugin "c" needs type (a built-in: mcp-stdio, prometheus, kubernetes) or path (an executable built with the SDK)`,
		`toolgate.hcl:20:13: Error in function call; Call to function "env" failed: environment variable "TOOLGATE_TEST_SURELY_UNSET" is not set and no default is given.`,
	}
	err := parseErr(t, src)
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if len(err.Diagnostics) != len(want) {
		t.Errorf("%d diagnostics, want %d", len(err.Diagnostics), len(want))
	}
	if err.Files["toolgate.hcl"] == nil {
		t.Error("Files lacks the source, so callers cannot print snippets")
	}
	for _, d := range err.Diagnostics {
		if d.Severity != hcl.DiagError || d.Subject == nil {
			t.Errorf("diagnostic without position or not an error: %+v", d)
		}
	}
}
