package config

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolgate/toolgate/internal/similar"
)

var builtinTypes = []string{"mcp-stdio", "prometheus", "kubernetes"}

// BuiltinTypes lists the plugin types the gateway binary serves itself.
func BuiltinTypes() []string { return slices.Clone(builtinTypes) }

// logLevels are the go-hclog level names.
var logLevels = []string{"trace", "debug", "info", "warn", "error", "off"}

// pluginNameRE keeps names usable inside tool names (x_<plugin>_<tool>) and URLs.
var pluginNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// MaxPluginNameLen bounds a plugin name so that x_<plugin>_ always fits whole
// in MCP's 64-character tool names, with room left for the tool's own name:
// a prefix clipped away would give two plugins' tools the same name.
const MaxPluginNameLen = 40

func parseDuration(name, s string, positive bool) (time.Duration, string) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, fmt.Sprintf(`invalid duration %q for %s; write a number with a unit, such as "30s", "5m" or "1h30m"`, s, name)
	case d < 0:
		return 0, fmt.Sprintf("%s must not be negative", name)
	case positive && d == 0:
		return 0, fmt.Sprintf("%s must be greater than zero", name)
	}
	return d, ""
}

// checkHTTPAddr accepts host:port with a numeric port, and "" (no HTTP front).
func checkHTTPAddr(addr string) string {
	if addr == "" {
		return ""
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Sprintf("invalid listen address %q; write host:port, such as %q", addr, DefaultHTTP)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Sprintf("invalid port %q in listen address %q", port, addr)
	}
	return ""
}

// checkOTLPEndpoint accepts what the OTLP/gRPC exporter dials: host:port, or
// an http:// (plain text) or https:// URL with a host; "" turns tracing off.
func checkOTLPEndpoint(ep string) string {
	const example = `such as "127.0.0.1:4317" or "https://otel.example.com:4317"`
	if ep == "" {
		return ""
	}
	if scheme, _, ok := strings.Cut(ep, "://"); ok {
		u, err := url.Parse(ep)
		if err != nil || (scheme != "http" && scheme != "https") || u.Host == "" {
			return fmt.Sprintf("invalid otlp_endpoint %q; write host:port or an http:// or https:// URL, %s", ep, example)
		}
		return ""
	}
	if _, port, err := net.SplitHostPort(ep); err != nil || port == "" {
		return fmt.Sprintf("invalid otlp_endpoint %q; write host:port or an http:// or https:// URL, %s", ep, example)
	}
	return ""
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func checkMaxRequestBytes(n int64) string {
	if n <= 0 {
		return "max_request_bytes must be greater than zero"
	}
	if n > MaxRequestBytesLimit {
		return fmt.Sprintf("max_request_bytes %d is above %d (32 MiB), the most a call's arguments may carry to a plugin", n, MaxRequestBytesLimit)
	}
	return ""
}

// checkLogLevel returns the level in lower case.
func checkLogLevel(s string) (string, string) {
	l := strings.ToLower(strings.TrimSpace(s))
	if slices.Contains(logLevels, l) {
		return l, ""
	}
	return DefaultLogLevel, unknownMsg("log_level", s, logLevels)
}

func unknownMsg(what, given string, options []string) string {
	if s := similar.Closest(given, options); s != "" {
		return fmt.Sprintf("unknown %s %q; did you mean %q?", what, given, s)
	}
	return fmt.Sprintf("unknown %s %q; use one of %s", what, given, strings.Join(options, ", "))
}

func checkPluginName(name string) string {
	if pluginNameRE.MatchString(name) {
		if len(name) > MaxPluginNameLen {
			return fmt.Sprintf("plugin name %q is %d characters long; at most %d fit, so that its tools' names (x_<plugin>_<tool>) stay within MCP's 64 characters and apart from other plugins' tools; did you mean %q?",
				name, len(name), MaxPluginNameLen, sanitizeName(name))
		}
		return ""
	}
	msg := fmt.Sprintf("invalid plugin name %q: use lowercase letters, digits and \"-\", starting with a letter or digit", name)
	if s := sanitizeName(name); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg
}

// sanitizeName is the valid name closest in spirit to an invalid one ("My_Plugin" →
// "my-plugin"), or "" when nothing usable remains.
func sanitizeName(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	s := strings.TrimLeft(string(b), "-")
	if len(s) > MaxPluginNameLen {
		s = strings.TrimRight(s[:MaxPluginNameLen], "-")
	}
	if !pluginNameRE.MatchString(s) {
		return ""
	}
	return s
}

// crossCheck validates what needs more than one attribute: a plugin's kind (type or
// path) and the uniqueness of names.
func (d *decoder) crossCheck(specs []pluginSpec) {
	var none hcl.Range
	first := map[string]hcl.Range{}
	for i := range specs {
		s := &specs[i]
		if msg := checkPluginName(s.Name); msg != "" {
			d.problem(s.NameRange, msg)
		}
		if prev, dup := first[s.Name]; dup {
			d.diags = append(d.diags, errorf(s.NameRange, "duplicate plugin name %q; first defined at %s", s.Name, pos(prev)))
		} else {
			first[s.Name] = s.NameRange
		}

		hasType, hasPath := s.TypeRange != none, s.PathRange != none
		switch {
		case !hasType && !hasPath:
			d.diags = append(d.diags, errorf(s.DefRange,
				"plugin %q needs type (a built-in: %s) or path (an executable built with the SDK)",
				s.Name, strings.Join(builtinTypes, ", ")))
		case hasType && hasPath:
			d.diags = append(d.diags, errorf(s.PathRange,
				"plugin %q sets both type and path; keep type for a built-in or path for an SDK executable", s.Name))
		case hasType:
			// A nil Type here means gohcl already reported an unusable value.
			if s.Type != nil && !slices.Contains(builtinTypes, *s.Type) {
				d.problem(s.TypeRange, unknownMsg("plugin type", *s.Type, builtinTypes))
			}
			if s.ArgsRange != none {
				d.diags = append(d.diags, errorf(s.ArgsRange,
					"args applies only to path executables; a built-in plugin takes its arguments in its config block"))
			}
		case s.Path != nil && *s.Path == "":
			d.diags = append(d.diags, errorf(s.PathRange, "plugin %q has an empty path", s.Name))
		}
	}
}
