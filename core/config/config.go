// Package config turns the operator's HCL file into a validated Config and layers the
// environment (TOOLGATE_*) and command-line flags over it. It exists so that every
// command reads configuration the same way and every mistake in a file is reported
// once, all together, at the file:line:col where it was written.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// EmbeddedName is Config.File for the built-in default config.
const EmbeddedName = "<embedded>"

// DefaultSource is the config Default() serves when no file is given: the repository's
// config.example.hcl, set by the root package (which embeds it) before any command runs.
var DefaultSource []byte

// ErrNoDefault is returned by Default when DefaultSource was never set.
var ErrNoDefault = errors.New("no embedded default config")

// Defaults applied where the file is silent.
const (
	DefaultHTTP            = "127.0.0.1:8700"
	DefaultCallTimeout     = 60 * time.Second
	DefaultShutdownGrace   = 10 * time.Second
	DefaultMaxRequestBytes = 4 << 20
	DefaultLogLevel        = "info"
)

// MaxRequestBytesLimit is the largest max_request_bytes: a call's arguments
// travel to the plugin in one message, which the plugin connection bounds at
// 64 MiB, so a larger request would pass the gateway only to be refused there.
// Half of that leaves room for the message's other fields.
const MaxRequestBytesLimit = 32 << 20

// Config is one validated configuration.
type Config struct {
	File      string // path the config came from (EmbeddedName for the built-in default)
	Listen    Listen
	Gateway   Gateway
	Telemetry Telemetry
	Plugins   []Plugin // in file order
	// Warnings are legal but risky choices (a non-loopback listen address), each
	// "where: message"; the gateway prints them at start.
	Warnings []string

	// httpFrom says where Listen.HTTP was set ("file:line:col", an env variable, a
	// flag), so a warning re-made after Layer still points at its source;
	// httpRange is that place when it is in the file (zero otherwise).
	httpFrom  string
	httpRange hcl.Range
	// envRead are the variables the file's env() calls name, which the
	// environment may hold whatever their name.
	envRead map[string]bool
}

// Listen is the gateway's HTTP front.
type Listen struct {
	HTTP           string   // host:port of streamable HTTP; "" (written explicitly) serves no HTTP
	Tokens         []string // accepted bearer tokens; empty = no authentication
	AllowedOrigins []string
	AllowedHosts   []string
	TLSCert        string // both or neither; paths resolved against the config's directory
	TLSKey         string
	Metrics        bool // serve Prometheus metrics at /metrics (default true)
	// AllowUnauthenticated lets a non-loopback HTTP address serve without
	// tokens or OAuth, for a gateway behind something that authenticates
	// every request; without it such a config is refused.
	AllowUnauthenticated bool
	OAuth                *OAuth // accept an authorization server's access tokens; nil = no `oauth {}` block
	// SessionKeys seal legacy session state into session ids so that every
	// replica sharing them serves every session; the first seals, all open.
	// Empty = random ids held by one process.
	SessionKeys [][]byte
	Limits      // connection and session limits of the HTTP front
}

// Gateway holds process-wide settings.
type Gateway struct {
	CallTimeout     time.Duration
	MaxCallTimeout  time.Duration // longest timeout_seconds a call_tool may ask for; 0 = the meta-tools' default (1h)
	ShutdownGrace   time.Duration
	MaxRequestBytes int64
	StateDir        string // $XDG_STATE_HOME/toolgate, else ~/.local/state/toolgate
	LogLevel        string // trace, debug, info, warn, error or off
	AuditLog        string // file that gets a JSON line per call_tool, resolved against the config's directory; "" = none
	AuditLogMaxSize int64  // rotate the audit log when it would grow past this many bytes
	AuditLogKeep    int    // rotated audit logs kept (audit.jsonl.1 … .N); older ones are deleted
	// NativePrompts and NativeResources serve the plugins' prompts, and
	// their resources and templates, as MCP's own lists beside the
	// meta-tools (default on).
	NativePrompts, NativeResources bool
}

// Telemetry is where traces go.
type Telemetry struct {
	// OTLPEndpoint receives a span per call_tool over OTLP/gRPC: host:port
	// (plain text) or an http:// or https:// URL; "" = no tracing.
	OTLPEndpoint string
}

// Plugin is one `plugin "name" {}` block.
type Plugin struct {
	Name        string            // block label, ^[a-z0-9][a-z0-9-]*$
	Type        string            // built-in type (see BuiltinTypes); "" when Path is set
	Path        string            // SDK-built executable, absolute (resolved against the config's directory)
	Args        []string          // extra arguments for a Path executable
	AutoStart   bool              // start with the gateway instead of on first use
	IdleTimeout time.Duration     // stop after this long unused; 0 = never
	CallTimeout time.Duration     // 0 = Gateway.CallTimeout
	Env         map[string]string // extra environment for the plugin process
	Labels      map[string]string
	Disabled    bool
	// Destructive is what call_tool does with a tool of this plugin that may
	// delete or overwrite data (DestructiveConfirm, DestructiveAllow or
	// DestructiveDeny).
	Destructive string
	Config      json.RawMessage // the `config {}` block as a JSON object ("{}" when absent)
	DeclRange   hcl.Range       // the `plugin "name"` block header
	PathRange   hcl.Range       // the value of path, when set
	// FieldRange maps a path into Config to where it was written, so a field error the
	// plugin returns is reported at file:line:col. Paths are dotted ("url", "args.1",
	// "headers.X-Id") or JSON pointers ("/headers/X-Id"); an unknown path falls back to
	// its longest known prefix, then to the config block, then to DeclRange.
	FieldRange func(path string) hcl.Range
	// StartTimeout bounds the whole start: launch, handshake, configure and
	// the first listing of what the plugin serves; 0 = the supervisor's
	// default (30s).
	StartTimeout time.Duration
}

// What call_tool does with a tool that may delete or overwrite data: one
// whose annotations do not say it is read-only or not destructive, which is
// MCP's default for a tool that says nothing of itself. Calls through
// call_tool all look alike to a client's own permission prompt, so the
// gateway asks for itself.
const (
	// DestructiveConfirm asks the calling client's user first, by
	// elicitation, and refuses when the client cannot be asked (the default).
	DestructiveConfirm = "confirm"
	// DestructiveAllow runs such tools without asking.
	DestructiveAllow = "allow"
	// DestructiveDeny refuses them.
	DestructiveDeny = "deny"
)

var destructivePolicies = []string{DestructiveConfirm, DestructiveAllow, DestructiveDeny}

// Load reads, decodes and validates the config file at path.
func Load(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(path) {
		// An IDE starts its MCP servers in a directory of its own choosing.
		if wd, werr := os.Getwd(); werr == nil {
			return nil, fmt.Errorf("read config: %w (a relative path is taken from the working directory, %s; give an absolute path)", err, wd)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(src, path)
}

// Default parses DefaultSource, named EmbeddedName; relative paths in it are taken from
// the working directory.
func Default() (*Config, error) {
	if DefaultSource == nil {
		return nil, ErrNoDefault
	}
	return Parse(DefaultSource, EmbeddedName)
}

// Resolve finds the config the way every command does: the --config flag's value, then
// $TOOLGATE_CONFIG, then ./toolgate.hcl if it exists, then Default(). The caller applies
// Layer afterwards, once its flags are parsed.
func Resolve(flagPath string) (*Config, error) {
	if flagPath != "" {
		return Load(flagPath)
	}
	if p := os.Getenv("TOOLGATE_CONFIG"); p != "" {
		return Load(p)
	}
	const local = "toolgate.hcl"
	if _, err := os.Stat(local); err == nil {
		return Load(local)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("look for %s: %w", local, err)
	}
	return Default()
}

// Plugin returns the plugin with the given name.
func (c *Config) Plugin(name string) (*Plugin, bool) {
	for i := range c.Plugins {
		if c.Plugins[i].Name == name {
			return &c.Plugins[i], true
		}
	}
	return nil, false
}
