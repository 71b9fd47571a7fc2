package config

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/posflag"
	"github.com/knadh/koanf/v2"
	"github.com/spf13/pflag"

	"github.com/toolgate/toolgate/internal/similar"
)

// override is one setting the environment or a flag may change. The table is the whole
// surface: an unknown TOOLGATE_* variable or an unrelated flag is never guessed at; one
// close to a name toolgate reads is warned about (see envTypos).
type override struct {
	key   string // koanf key
	env   string
	flag  string // "" when there is no flag
	apply func(c *Config, v string) string
}

var overrides = []override{
	{key: "listen.http", env: "TOOLGATE_LISTEN_HTTP", flag: "http", apply: func(c *Config, v string) string {
		if msg := checkHTTPAddr(v); msg != "" {
			return msg
		}
		c.Listen.HTTP = v
		return ""
	}},
	{key: "listen.token", env: "TOOLGATE_TOKEN", flag: "token", apply: func(c *Config, v string) string {
		v = strings.TrimSpace(v)
		if v == "" {
			return "the token is blank; give the token clients send, or leave it unset"
		}
		c.Listen.Tokens = []string{v}
		return ""
	}},
	// No flag: opening the gateway to the network unauthenticated is written
	// down where the deployment is described, not typed in passing.
	{key: "listen.allow_unauthenticated", env: "TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED", apply: func(c *Config, v string) string {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Sprintf("invalid value %q; write true or false", v)
		}
		c.Listen.AllowUnauthenticated = b
		return ""
	}},
	// The session key has no flag: a secret on the command line shows in ps.
	{key: "listen.session_key", env: "TOOLGATE_SESSION_KEY", apply: func(c *Config, v string) string {
		keys, msg := parseSessionKeys(v)
		if msg == "" {
			c.Listen.SessionKeys = keys
		}
		return msg
	}},
	{key: "gateway.log_level", env: "TOOLGATE_LOG_LEVEL", flag: "log-level", apply: func(c *Config, v string) string {
		lvl, msg := checkLogLevel(v)
		if msg == "" {
			c.Gateway.LogLevel = lvl
		}
		return msg
	}},
	{key: "gateway.call_timeout", env: "TOOLGATE_CALL_TIMEOUT", flag: "call-timeout", apply: func(c *Config, v string) string {
		d, msg := parseDuration("call_timeout", v, true)
		if msg == "" {
			c.Gateway.CallTimeout = d
		}
		return msg
	}},
	{key: "gateway.shutdown_grace", env: "TOOLGATE_SHUTDOWN_GRACE", apply: func(c *Config, v string) string {
		d, msg := parseDuration("shutdown_grace", v, false)
		if msg == "" {
			c.Gateway.ShutdownGrace = d
		}
		return msg
	}},
	{key: "gateway.max_request_bytes", env: "TOOLGATE_MAX_REQUEST_BYTES", apply: func(c *Config, v string) string {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Sprintf("invalid max_request_bytes %q; write a whole number of bytes", v)
		}
		if msg := checkMaxRequestBytes(n); msg != "" {
			return msg
		}
		c.Gateway.MaxRequestBytes = n
		return ""
	}},
	{key: "gateway.state_dir", env: "TOOLGATE_STATE_DIR", flag: "state-dir", apply: func(c *Config, v string) string {
		c.Gateway.StateDir = resolvePath("", v)
		return ""
	}},
}

// otherEnv are the TOOLGATE_* variables toolgate reads outside the overrides table.
var otherEnv = []string{"TOOLGATE_CONFIG"}

// envTypos warns of each TOOLGATE_* variable of environ that toolgate does not read but
// is a likely typo of one it does: the setting it was meant for silently keeps its value.
// A variable the config's env() names is read, whatever its name; one that is near no
// known name may be for anything else, and is left alone.
func (c *Config) envTypos(environ []string) []string {
	known := append([]string(nil), otherEnv...)
	for _, o := range overrides {
		known = append(known, o.env)
	}
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "TOOLGATE_") || slices.Contains(known, name) || c.envRead[name] {
			continue
		}
		if meant := similar.Closest(name, known); meant != "" {
			out = append(out, fmt.Sprintf("environment: %s is not a variable toolgate reads, so it changes nothing; did you mean %s?", name, meant))
		}
	}
	slices.Sort(out)
	return out
}

// AddFlags defines the flags Layer reads (--http, --token, --log-level, --call-timeout,
// --state-dir) on fs, so every command spells them the same way.
func AddFlags(fs *pflag.FlagSet) {
	fs.String("http", "", "listen address of the streamable HTTP front (host:port; overrides listen.http)")
	fs.String("token", "", "bearer token clients must send (overrides listen.token/tokens)")
	fs.String("log-level", "", "trace, debug, info, warn, error or off (overrides gateway.log_level)")
	fs.String("call-timeout", "", "default time limit of a tool call, e.g. 30s (overrides gateway.call_timeout)")
	fs.String("state-dir", "", "directory for manifests and other state (overrides gateway.state_dir)")
}

// Layer applies the environment (TOOLGATE_LISTEN_HTTP, TOOLGATE_TOKEN,
// TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED, TOOLGATE_SESSION_KEY, TOOLGATE_LOG_LEVEL,
// TOOLGATE_CALL_TIMEOUT, TOOLGATE_SHUTDOWN_GRACE, TOOLGATE_MAX_REQUEST_BYTES,
// TOOLGATE_STATE_DIR) over the file, then the flags of flags that were set on the
// command line (see AddFlags) over both. flags may be nil. Empty values are ignored, so
// an exported-but-empty TOOLGATE_TOKEN cannot switch authentication off. Problems come
// back as *Error naming the variable or flag; c is left unchanged for those settings.
// Layer also refuses a non-loopback listen address without authentication (see
// exposure): only once the environment and flags are in is it known whether the
// address, the tokens and the opt-in all end up as the file wrote them.
func (c *Config) Layer(flags *pflag.FlagSet) error {
	byEnv := map[string]*override{}
	byFlag := map[string]*override{}
	for i := range overrides {
		o := &overrides[i]
		byEnv[o.env] = o
		if o.flag != "" {
			byFlag[o.flag] = o
		}
	}
	from := map[string]string{} // koanf key → the variable or flag it came from

	k := koanf.New(".")
	envProvider := env.Provider(".", env.Opt{
		Prefix: "TOOLGATE_",
		TransformFunc: func(name, v string) (string, any) {
			o, ok := byEnv[name]
			if !ok || v == "" {
				return "", nil
			}
			from[o.key] = name
			return o.key, v
		},
	})
	if err := k.Load(envProvider, nil); err != nil {
		return fmt.Errorf("read TOOLGATE_* environment: %w", err)
	}
	if flags != nil {
		flagProvider := posflag.ProviderWithFlag(flags, ".", nil, func(f *pflag.Flag) (string, any) {
			o, ok := byFlag[f.Name]
			if !ok || !f.Changed || f.Value.String() == "" {
				return "", nil
			}
			from[o.key] = "--" + f.Name
			return o.key, f.Value.String()
		})
		if err := k.Load(flagProvider, nil); err != nil {
			return fmt.Errorf("read flags: %w", err)
		}
	}

	var diags hcl.Diagnostics
	for _, o := range overrides {
		if !k.Exists(o.key) {
			continue
		}
		if msg := o.apply(c, k.String(o.key)); msg != "" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: from[o.key] + ": " + msg})
			continue
		}
		if o.key == "listen.http" {
			c.httpFrom, c.httpRange = from[o.key], hcl.Range{}
		}
	}
	c.refreshWarnings()
	if d := c.exposure(); d != nil {
		diags = append(diags, d)
	}
	c.Warnings = append(c.Warnings, c.envTypos(os.Environ())...)
	if diags.HasErrors() {
		return &Error{Diagnostics: diags}
	}
	return nil
}
