package config

import (
	"errors"
	"reflect"
	"testing"
)

const exposureFix = "set tokens (or TOOLGATE_TOKEN), configure an oauth block in listen, bind 127.0.0.1, " +
	"or, when something in front of the gateway authenticates every request, set allow_unauthenticated = true in listen (TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED=true)"

// A config that would serve every tool to the network without
// authentication is refused where its address was set, with the ways out;
// whatever authenticates, binds loopback or opts in, from the file, the
// environment or a flag, lets it through.
func TestExposure(t *testing.T) {
	const open = "listen {\n  metrics = true\n  http    = \"0.0.0.0:8700\"\n}\n"
	for _, tc := range []struct {
		name    string
		src     string
		env     map[string]string
		flags   []string
		problem Problem // zero: no error
		warn    []string
	}{
		{name: "file, no auth", src: open,
			problem: Problem{File: "toolgate.hcl", Line: 3, Column: 13, Message: `listen address "0.0.0.0:8700" is not loopback and no token or oauth is configured, so anyone who can reach it could call every tool; ` + exposureFix}},
		{name: "every interface by an empty host", src: "listen {\n  http = \":18400\"\n}\n",
			problem: Problem{File: "toolgate.hcl", Line: 2, Column: 10, Message: `listen address ":18400" is not loopback and no token or oauth is configured, so anyone who can reach it could call every tool; ` + exposureFix}},
		{name: "address from the environment", src: "", env: map[string]string{"TOOLGATE_LISTEN_HTTP": "192.0.2.1:18400"},
			problem: Problem{Message: `TOOLGATE_LISTEN_HTTP: listen address "192.0.2.1:18400" is not loopback and no token or oauth is configured, so anyone who can reach it could call every tool; ` + exposureFix}},
		{name: "address from a flag over a loopback file", src: "listen {\n  http = \"127.0.0.1:18400\"\n}\n", flags: []string{"--http", "[::]:18400"},
			problem: Problem{Message: `--http: listen address "[::]:18400" is not loopback and no token or oauth is configured, so anyone who can reach it could call every tool; ` + exposureFix}},
		{name: "token from the environment", src: open, env: map[string]string{"TOOLGATE_TOKEN": "t"},
			warn: []string{`toolgate.hcl:3:13: listen address "0.0.0.0:8700" is not loopback, so other hosts can reach the gateway; without tls_cert and tls_key, tokens cross the network in clear text`}},
		{name: "token from a flag", src: open, flags: []string{"--token", "t"},
			warn: []string{`toolgate.hcl:3:13: listen address "0.0.0.0:8700" is not loopback, so other hosts can reach the gateway; without tls_cert and tls_key, tokens cross the network in clear text`}},
		{name: "loopback by flag", src: open, flags: []string{"--http", "127.0.0.1:18400"}},
		{name: "oauth", src: "listen {\n  http = \"0.0.0.0:8700\"\n  tls_cert = \"c\"\n  tls_key = \"k\"\n  oauth {\n    issuer = \"https://a.example.com\"\n    audience = \"x\"\n  }\n}\n",
			warn: []string{`toolgate.hcl:2:10: listen address "0.0.0.0:8700" is not loopback, so other hosts can reach the gateway`}},
		{name: "opted in by the file", src: "listen {\n  http = \"0.0.0.0:8700\"\n  allow_unauthenticated = true\n}\n",
			warn: []string{`toolgate.hcl:2:10: listen address "0.0.0.0:8700" is not loopback, so other hosts can reach the gateway; allow_unauthenticated is set and no token or oauth is configured, so any of them can call every tool`}},
		{name: "opted in by the environment", src: open, env: map[string]string{"TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED": "true"},
			warn: []string{`toolgate.hcl:3:13: listen address "0.0.0.0:8700" is not loopback, so other hosts can reach the gateway; allow_unauthenticated is set and no token or oauth is configured, so any of them can call every tool`}},
		{name: "opt-in taken back by the environment", src: "listen {\n  http = \"0.0.0.0:8700\"\n  allow_unauthenticated = true\n}\n", env: map[string]string{"TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED": "false"},
			problem: Problem{File: "toolgate.hcl", Line: 2, Column: 10, Message: `listen address "0.0.0.0:8700" is not loopback and no token or oauth is configured, so anyone who can reach it could call every tool; ` + exposureFix}},
		{name: "opt-in not a boolean", src: "listen {\n  http = \"127.0.0.1:8700\"\n}\n", env: map[string]string{"TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED": "yes please"},
			problem: Problem{Message: `TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED: invalid value "yes please"; write true or false`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearLayerEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			c, err := Parse([]byte(tc.src), "toolgate.hcl")
			if err != nil {
				t.Fatal(err)
			}
			err = c.Layer(newFlags(t, tc.flags...))
			if tc.problem == (Problem{}) {
				if err != nil {
					t.Fatalf("Layer = %v, want no error", err)
				}
				if !reflect.DeepEqual(c.Warnings, tc.warn) {
					t.Errorf("Warnings =\n%q\nwant\n%q", c.Warnings, tc.warn)
				}
				return
			}
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Layer = %T %v, want a *config.Error", err, err)
			}
			if got := cerr.Problems(); len(got) != 1 || got[0] != tc.problem {
				t.Errorf("problems =\n%+v\nwant\n%+v", got, tc.problem)
			}
		})
	}
}
