package mcpstdio

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// defaultInitTimeout bounds starting the server, the initialize handshake and
// the first fetch of its lists when the config does not say otherwise.
const defaultInitTimeout = 30 * time.Second

// rawConfig is the plugin's `config {}` block as the operator wrote it:
//
//	config {
//	  command          = "npx"                      # required: a name in PATH or a path
//	  args             = ["-y", "@modelcontextprotocol/server-everything"]
//	  env              = { API_KEY = "..." }        # added to the plugin's environment
//	  cwd              = "/srv/work"                # the server's working directory
//	  init_timeout     = "30s"                      # start, initialize and first lists
//	  protocol_version = "2025-06-18"               # default: the newest with a handshake
//	  forward_roots_changed = true                  # pass clients' roots changes on (default false)
//	}
type rawConfig struct {
	Command         string            `json:"command"`
	Args            []string          `json:"args,omitempty"`
	Env             map[string]string `json:"env,omitempty"`
	Cwd             string            `json:"cwd,omitempty"`
	InitTimeout     string            `json:"init_timeout,omitempty"`
	ProtocolVersion string            `json:"protocol_version,omitempty"`
	// ForwardRootsChanged passes a client's notifications/roots/list_changed
	// on to the server. Off by default: a server keeps the roots it then asks
	// for as its own, for every client (see forwardRootsChanged).
	ForwardRootsChanged bool `json:"forward_roots_changed,omitempty"`
}

// configSchema describes the config block to the gateway, which checks an
// operator's settings against it before the plugin runs.
var configSchema = mustSchema(rawConfig{})

func mustSchema(v any) json.RawMessage {
	s, err := plugin.SchemaOf(v)
	if err != nil {
		panic(fmt.Sprintf("config schema: %v", err))
	}
	return s
}

// config is a checked rawConfig, ready to start a server with.
type config struct {
	path            string // the executable, resolved
	command         string // as written, for messages
	args            []string
	env             []string // the plugin's environment plus the configured variables
	dir             string
	initTimeout     time.Duration
	protocolVersion string
	clientVersion   string // what the initialize handshake says toolgate is
	// forwardRootsChanged: a client's notifications/roots/list_changed goes
	// on to the server, which asks for roots at once; the client of the call
	// then in progress answers, and a server that keeps roots as its state
	// (server-filesystem takes them as its allowed directories) applies one
	// client's roots to every client, in place of the configured ones.
	forwardRootsChanged bool
}

// parseConfig decodes and checks a config block. Every problem found is
// reported at once, each at the path of the field at fault.
func parseConfig(raw json.RawMessage) (*config, error) {
	var rc rawConfig
	if err := plugin.DecodeConfig(raw, &rc); err != nil {
		return nil, err
	}
	var problems []protov1.FieldError
	bad := func(path, format string, args ...any) {
		problems = append(problems, protov1.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	c := &config{command: rc.Command, args: rc.Args, initTimeout: defaultInitTimeout, forwardRootsChanged: rc.ForwardRootsChanged}

	if rc.InitTimeout != "" {
		d, err := time.ParseDuration(rc.InitTimeout)
		switch {
		case err != nil:
			bad("init_timeout", "not a duration (e.g. \"30s\"): %v", err)
		case d <= 0:
			bad("init_timeout", "must be positive, got %s", rc.InitTimeout)
		default:
			c.initTimeout = d
		}
	}

	// The plugin speaks the initialize handshake, which negotiates versions up
	// to LATEST_LEGACY_PROTOCOL_VERSION; later revisions dropped it.
	c.protocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if v := rc.ProtocolVersion; v != "" {
		if !mcp.IsValidProtocolVersion(v) || mcp.IsModernProtocol(v) {
			bad("protocol_version", "unsupported MCP protocol version %q; use one of %s", v, strings.Join(legacyVersions(), ", "))
		} else {
			c.protocolVersion = v
		}
	}

	if rc.Cwd != "" {
		if info, err := os.Stat(rc.Cwd); err != nil {
			bad("cwd", "%v", err)
		} else if !info.IsDir() {
			bad("cwd", "%s is not a directory", rc.Cwd)
		} else {
			c.dir = rc.Cwd
		}
	}

	c.env = plugin.ChildEnv()
	keys := make([]string, 0, len(rc.Env))
	for k := range rc.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			bad("env."+k, "not a valid environment variable name")
			continue
		}
		c.env = append(c.env, k+"="+rc.Env[k])
	}

	if strings.TrimSpace(rc.Command) == "" {
		bad("command", "is required")
	} else if path, err := resolveCommand(rc.Command, rc.Cwd, rc.Env["PATH"]); err != nil {
		bad("command", "%v", err)
	} else {
		c.path = path
	}

	if len(problems) > 0 {
		return nil, &protov1.ConfigError{Fields: problems}
	}
	return c, nil
}

// resolveCommand finds the executable the way the server will be started: a
// bare name is searched in PATH (the configured one when env sets it), a
// relative path is taken from the working directory the server gets.
func resolveCommand(command, dir, pathEnv string) (string, error) {
	if !strings.ContainsRune(command, filepath.Separator) {
		if pathEnv == "" {
			pathEnv = os.Getenv("PATH")
		}
		for _, d := range filepath.SplitList(pathEnv) {
			if d == "" {
				d = "."
			}
			if p := filepath.Join(d, command); isExecutable(p) {
				return filepath.Abs(p)
			}
		}
		// Name the PATH searched: an IDE starts the gateway with a PATH of
		// its own, where a command found in the operator's shell is not.
		return "", fmt.Errorf("%q is not an executable in PATH (%s); give its absolute path, or set PATH in the plugin block's env", command, pathEnv)
	}
	p := command
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	info, err := os.Stat(p)
	if err != nil {
		return "", &exec.Error{Name: command, Err: err}
	}
	if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
		return "", &exec.Error{Name: command, Err: fmt.Errorf("not an executable file (mode %v)", info.Mode())}
	}
	return filepath.Abs(p)
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}

// legacyVersions lists the protocol versions the initialize handshake can ask for.
func legacyVersions() []string {
	var out []string
	for _, v := range mcp.ValidProtocolVersions {
		if !mcp.IsModernProtocol(v) {
			out = append(out, v)
		}
	}
	return out
}
