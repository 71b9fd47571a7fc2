package config

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

const layerFile = `listen {
  http  = "127.0.0.1:1001"
  token = "file-token"
}
gateway {
  log_level    = "warn"
  call_timeout = "11s"
}
`

// clearLayerEnv neutralises TOOLGATE_* variables of the machine running the tests:
// Layer ignores empty values.
func clearLayerEnv(t *testing.T) {
	t.Helper()
	for _, o := range overrides {
		t.Setenv(o.env, "")
	}
}

func newFlags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	AddFlags(fs)
	fs.String("config", "", "unrelated flag Layer must ignore")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

type layered struct {
	HTTP        string
	Tokens      []string
	LogLevel    string
	CallTimeout time.Duration
}

func TestLayerPrecedence(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		flags []string
		want  layered
	}{
		{
			name: "file only",
			want: layered{"127.0.0.1:1001", []string{"file-token"}, "warn", 11 * time.Second},
		},
		{
			name: "env over file",
			env: map[string]string{
				"TOOLGATE_LISTEN_HTTP":  "127.0.0.1:2002",
				"TOOLGATE_TOKEN":        "env-token",
				"TOOLGATE_LOG_LEVEL":    "DEBUG",
				"TOOLGATE_CALL_TIMEOUT": "22s",
			},
			want: layered{"127.0.0.1:2002", []string{"env-token"}, "debug", 22 * time.Second},
		},
		{
			name: "flags over env",
			env: map[string]string{
				"TOOLGATE_LISTEN_HTTP":  "127.0.0.1:2002",
				"TOOLGATE_TOKEN":        "env-token",
				"TOOLGATE_LOG_LEVEL":    "debug",
				"TOOLGATE_CALL_TIMEOUT": "22s",
			},
			flags: []string{"--http", "127.0.0.1:3003", "--token=flag-token", "--log-level", "error", "--call-timeout", "33s"},
			want:  layered{"127.0.0.1:3003", []string{"flag-token"}, "error", 33 * time.Second},
		},
		{
			name:  "some flags, some env",
			env:   map[string]string{"TOOLGATE_LOG_LEVEL": "debug", "TOOLGATE_TOKEN": "env-token"},
			flags: []string{"--http", "127.0.0.1:3003", "--config", "x.hcl"},
			want:  layered{"127.0.0.1:3003", []string{"env-token"}, "debug", 11 * time.Second},
		},
		{
			name:  "empty values do not override",
			env:   map[string]string{"TOOLGATE_TOKEN": ""},
			flags: []string{"--token", ""},
			want:  layered{"127.0.0.1:1001", []string{"file-token"}, "warn", 11 * time.Second},
		},
		{
			name: "white space around a token is not part of it",
			env:  map[string]string{"TOOLGATE_TOKEN": " env-token\n"},
			want: layered{"127.0.0.1:1001", []string{"env-token"}, "warn", 11 * time.Second},
		},
		{
			name: "unknown TOOLGATE_ variables are ignored",
			env:  map[string]string{"TOOLGATE_HTTP": "127.0.0.1:9", "TOOLGATE_CONFIG": "other.hcl"},
			want: layered{"127.0.0.1:1001", []string{"file-token"}, "warn", 11 * time.Second},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearLayerEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := Parse([]byte(layerFile), "toolgate.hcl")
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Layer(newFlags(t, tt.flags...)); err != nil {
				t.Fatal(err)
			}
			got := layered{c.Listen.HTTP, c.Listen.Tokens, c.Gateway.LogLevel, c.Gateway.CallTimeout}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLayerOtherSettings(t *testing.T) {
	clearLayerEnv(t)
	t.Setenv("TOOLGATE_SHUTDOWN_GRACE", "3s")
	t.Setenv("TOOLGATE_MAX_REQUEST_BYTES", "1024")
	t.Setenv("TOOLGATE_STATE_DIR", "/srv/env-state")
	c, err := Parse(nil, "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Layer(newFlags(t, "--state-dir", "/srv/flag-state")); err != nil {
		t.Fatal(err)
	}
	g := c.Gateway
	if g.ShutdownGrace != 3*time.Second || g.MaxRequestBytes != 1024 || g.StateDir != "/srv/flag-state" {
		t.Errorf("Gateway = %+v", g)
	}
	if err := c.Layer(nil); err != nil {
		t.Fatal(err)
	}
	if c.Gateway.StateDir != "/srv/env-state" {
		t.Errorf("Layer(nil) StateDir = %q, want the environment's", c.Gateway.StateDir)
	}
}

func TestLayerErrors(t *testing.T) {
	clearLayerEnv(t)
	t.Setenv("TOOLGATE_CALL_TIMEOUT", "5x")
	t.Setenv("TOOLGATE_MAX_REQUEST_BYTES", "4MiB")
	t.Setenv("TOOLGATE_LOG_LEVEL", "debgu")
	c, err := Parse([]byte(layerFile), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	err = c.Layer(newFlags(t, "--http", "nohost"))
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Layer error %T %v is not a *config.Error", err, err)
	}
	want := `--http: invalid listen address "nohost"; write host:port, such as "127.0.0.1:8700"
TOOLGATE_LOG_LEVEL: unknown log_level "debgu"; did you mean "debug"?
TOOLGATE_CALL_TIMEOUT: invalid duration "5x" for call_timeout; write a number with a unit, such as "30s", "5m" or "1h30m"
TOOLGATE_MAX_REQUEST_BYTES: invalid max_request_bytes "4MiB"; write a whole number of bytes`
	if err.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", err, want)
	}
	if c.Listen.HTTP != "127.0.0.1:1001" || c.Gateway.CallTimeout != 11*time.Second || c.Gateway.LogLevel != "warn" {
		t.Errorf("invalid overrides changed the config: %+v %+v", c.Listen, c.Gateway)
	}
}

// A token of white space alone is refused: dropping it, as an empty value is
// dropped, would be no different, but taking it as "no token" would turn
// authentication off.
func TestLayerBlankToken(t *testing.T) {
	clearLayerEnv(t)
	t.Setenv("TOOLGATE_TOKEN", " \n")
	c, err := Parse([]byte(layerFile), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	err = c.Layer(nil)
	want := "TOOLGATE_TOKEN: the token is blank; give the token clients send, or leave it unset"
	if err == nil || err.Error() != want {
		t.Errorf("Layer error = %v, want %q", err, want)
	}
	if !reflect.DeepEqual(c.Listen.Tokens, []string{"file-token"}) {
		t.Errorf("Tokens = %q, want the file's", c.Listen.Tokens)
	}
}

func TestLayerWarnings(t *testing.T) {
	clearLayerEnv(t)
	c, err := Parse([]byte(`listen {
  http                  = "0.0.0.0:8700"
  allow_unauthenticated = true
}`), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 {
		t.Fatalf("Warnings = %q, want one for 0.0.0.0", c.Warnings)
	}
	if err := c.Layer(newFlags(t, "--http", "127.0.0.1:8700")); err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("Warnings after --http loopback = %q, want none", c.Warnings)
	}

	t.Setenv("TOOLGATE_LISTEN_HTTP", "192.0.2.1:8700")
	t.Setenv("TOOLGATE_TOKEN", "t")
	if err := c.Layer(nil); err != nil {
		t.Fatal(err)
	}
	want := []string{`TOOLGATE_LISTEN_HTTP: listen address "192.0.2.1:8700" is not loopback, so other hosts can reach the gateway; without tls_cert and tls_key, tokens cross the network in clear text`}
	if !reflect.DeepEqual(c.Warnings, want) {
		t.Errorf("Warnings = %q, want %q", c.Warnings, want)
	}
}

// A TOOLGATE_* variable near a name toolgate reads is a likely typo and is
// warned about; one the config's env() reads, or one near no known name, is not.
func TestEnvTypos(t *testing.T) {
	t.Setenv("TOOLGATE_TOKEN_0", "a")
	c, err := Parse([]byte(`listen {
  tokens = [env("TOOLGATE_TOKEN_0"), env("TOOLGATE_TOKN", "x")]
}
`), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	got := c.envTypos([]string{
		"TOOLGATE_LOGLEVEL=debug", "TOOLGATE_STATEDIR=/x", "TOOLGATE_LOG_LEVEL=info",
		"TOOLGATE_TOKEN_0=a", "TOOLGATE_TOKN=b", "TOOLGATE_SOMETHING_ELSE_ENTIRELY=1", "LOGLEVEL=debug",
	})
	want := []string{
		"environment: TOOLGATE_LOGLEVEL is not a variable toolgate reads, so it changes nothing; did you mean TOOLGATE_LOG_LEVEL?",
		"environment: TOOLGATE_STATEDIR is not a variable toolgate reads, so it changes nothing; did you mean TOOLGATE_STATE_DIR?",
	}
	if !slices.Equal(got, want) {
		t.Errorf("envTypos =\n%q\nwant\n%q", got, want)
	}
}
