package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// The *Spec types mirror the HCL surface for gohcl. Pointers tell "absent" from "zero";
// the *Range fields (zero when the attribute is absent) are where problems are reported.
type fileSpec struct {
	Listen    *listenSpec    `hcl:"listen,block"`
	Gateway   *gatewaySpec   `hcl:"gateway,block"`
	Telemetry *telemetrySpec `hcl:"telemetry,block"`
	Plugins   []pluginSpec   `hcl:"plugin,block"`
}

type listenSpec struct {
	HTTP           *string    `hcl:"http,optional"`
	HTTPRange      hcl.Range  `hcl:"http,attr_value_range"`
	Token          *string    `hcl:"token,optional"`
	Tokens         []string   `hcl:"tokens,optional"`
	AllowedOrigins []string   `hcl:"allowed_origins,optional"`
	AllowedHosts   []string   `hcl:"allowed_hosts,optional"`
	TLSCert        *string    `hcl:"tls_cert,optional"`
	TLSCertRange   hcl.Range  `hcl:"tls_cert,attr_value_range"`
	TLSKey         *string    `hcl:"tls_key,optional"`
	TLSKeyRange    hcl.Range  `hcl:"tls_key,attr_value_range"`
	Metrics        *bool      `hcl:"metrics,optional"`
	AllowUnauth    *bool      `hcl:"allow_unauthenticated,optional"`
	OAuth          *oauthSpec `hcl:"oauth,block"`
	SessionKey     *string    `hcl:"session_key,optional"`
	SessionKeyRng  hcl.Range  `hcl:"session_key,attr_value_range"`

	MaxConnections               *int      `hcl:"max_connections,optional"`
	MaxConnectionsRange          hcl.Range `hcl:"max_connections,attr_value_range"`
	ReadTimeout                  *string   `hcl:"read_timeout,optional"`
	ReadTimeoutRange             hcl.Range `hcl:"read_timeout,attr_value_range"`
	IdleTimeout                  *string   `hcl:"idle_timeout,optional"`
	IdleTimeoutRange             hcl.Range `hcl:"idle_timeout,attr_value_range"`
	MaxSessions                  *int      `hcl:"max_sessions,optional"`
	MaxSessionsRange             hcl.Range `hcl:"max_sessions,attr_value_range"`
	MaxSessionsPerPrincipal      *int      `hcl:"max_sessions_per_principal,optional"`
	MaxSessionsPerPrincipalRange hcl.Range `hcl:"max_sessions_per_principal,attr_value_range"`
	SessionIdleTimeout           *string   `hcl:"session_idle_timeout,optional"`
	SessionIdleTimeoutRange      hcl.Range `hcl:"session_idle_timeout,attr_value_range"`
	SessionMaxAge                *string   `hcl:"session_max_age,optional"`
	SessionMaxAgeRange           hcl.Range `hcl:"session_max_age,attr_value_range"`
}

type gatewaySpec struct {
	CallTimeout          *string   `hcl:"call_timeout,optional"`
	CallTimeoutRange     hcl.Range `hcl:"call_timeout,attr_value_range"`
	MaxCallTimeout       *string   `hcl:"max_call_timeout,optional"`
	MaxCallTimeoutRange  hcl.Range `hcl:"max_call_timeout,attr_value_range"`
	ShutdownGrace        *string   `hcl:"shutdown_grace,optional"`
	ShutdownGraceRange   hcl.Range `hcl:"shutdown_grace,attr_value_range"`
	MaxRequestBytes      *int64    `hcl:"max_request_bytes,optional"`
	MaxRequestBytesRange hcl.Range `hcl:"max_request_bytes,attr_value_range"`
	StateDir             *string   `hcl:"state_dir,optional"`
	LogLevel             *string   `hcl:"log_level,optional"`
	LogLevelRange        hcl.Range `hcl:"log_level,attr_value_range"`
	AuditLog             *string   `hcl:"audit_log,optional"`
	AuditLogMaxSize      *int64    `hcl:"audit_log_max_size,optional"`
	AuditLogMaxSizeRange hcl.Range `hcl:"audit_log_max_size,attr_value_range"`
	AuditLogKeep         *int      `hcl:"audit_log_keep,optional"`
	AuditLogKeepRange    hcl.Range `hcl:"audit_log_keep,attr_value_range"`
	NativePrompts        *bool     `hcl:"native_prompts,optional"`
	NativeResources      *bool     `hcl:"native_resources,optional"`
}

type telemetrySpec struct {
	OTLPEndpoint      *string   `hcl:"otlp_endpoint,optional"`
	OTLPEndpointRange hcl.Range `hcl:"otlp_endpoint,attr_value_range"`
}

type pluginSpec struct {
	Name             string            `hcl:"name,label"`
	NameRange        hcl.Range         `hcl:"name,label_range"`
	Type             *string           `hcl:"type,optional"`
	TypeRange        hcl.Range         `hcl:"type,attr_value_range"`
	Path             *string           `hcl:"path,optional"`
	PathRange        hcl.Range         `hcl:"path,attr_value_range"`
	Args             []string          `hcl:"args,optional"`
	ArgsRange        hcl.Range         `hcl:"args,attr_value_range"`
	AutoStart        bool              `hcl:"auto_start,optional"`
	IdleTimeout      *string           `hcl:"idle_timeout,optional"`
	IdleTimeoutRange hcl.Range         `hcl:"idle_timeout,attr_value_range"`
	CallTimeout      *string           `hcl:"call_timeout,optional"`
	CallTimeoutRange hcl.Range         `hcl:"call_timeout,attr_value_range"`
	StartTimeout     *string           `hcl:"start_timeout,optional"`
	StartTimeoutRng  hcl.Range         `hcl:"start_timeout,attr_value_range"`
	Env              map[string]string `hcl:"env,optional"`
	Labels           map[string]string `hcl:"labels,optional"`
	Disabled         bool              `hcl:"disabled,optional"`
	Destructive      *string           `hcl:"destructive,optional"`
	DestructiveRange hcl.Range         `hcl:"destructive,attr_value_range"`
	Config           *configSpec       `hcl:"config,block"`
	DefRange         hcl.Range         `hcl:",def_range"`
}

// configSpec keeps the plugin's own settings undecoded: their schema belongs to the
// plugin, which receives them as JSON.
type configSpec struct {
	Body     hcl.Body  `hcl:",remain"`
	DefRange hcl.Range `hcl:",def_range"`
}

// Parse decodes and validates src; filename names it in positions and anchors relative
// paths (the working directory for EmbeddedName). A listen address that would serve the
// network unauthenticated is refused by Layer, once the environment and flags that may
// change the address, the tokens or the opt-in are known.
func Parse(src []byte, filename string) (*Config, error) {
	parser := hclparse.NewParser()
	file, diags := parser.ParseHCL(src, filename)
	if diags.HasErrors() {
		sortDiags(diags)
		return nil, &Error{Diagnostics: diags, Files: parser.Files()}
	}
	d := &decoder{baseDir: baseDirOf(filename)}
	envRead := map[string]bool{}
	d.ctx = evalContext(d.baseDir, func(name string) { envRead[name] = true })

	var spec fileSpec
	d.diags = dropCascades(gohcl.DecodeBody(file.Body, d.ctx, &spec))
	placeMisplaced(d.diags)
	cfg := &Config{File: filename, envRead: envRead}
	d.listen(cfg, spec.Listen)
	d.gateway(cfg, spec.Gateway)
	d.telemetry(cfg, spec.Telemetry)
	for i := range spec.Plugins {
		cfg.Plugins = append(cfg.Plugins, d.plugin(&spec.Plugins[i]))
	}
	d.crossCheck(spec.Plugins)

	if d.diags.HasErrors() {
		sortDiags(d.diags)
		return nil, &Error{Diagnostics: d.diags, Files: parser.Files()}
	}
	cfg.refreshWarnings()
	return cfg, nil
}

type decoder struct {
	baseDir string
	ctx     *hcl.EvalContext
	diags   hcl.Diagnostics
}

// problem reports msg at rng unless gohcl already reported the value written there (a
// list where a string belongs): one mistake, one message.
func (d *decoder) problem(rng hcl.Range, msg string) {
	if diag := errorf(rng, "%s", msg); !coversEarlier(diag, d.diags) {
		d.diags = append(d.diags, diag)
	}
}

// dropCascades drops a gohcl diagnostic whose expression already has a problem reported
// inside it: an expression that fails to evaluate (an unset env(), an unknown function)
// is reported, then again as "value must be known" when gohcl stores the failed result.
func dropCascades(diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		if !coversEarlier(d, out) {
			out = append(out, d)
		}
	}
	return out
}

func coversEarlier(d *hcl.Diagnostic, earlier hcl.Diagnostics) bool {
	outer := d.Context
	if outer == nil {
		outer = d.Subject
	}
	if outer == nil {
		return false
	}
	for _, e := range earlier {
		if e.Subject != nil && e.Subject.Filename == outer.Filename &&
			e.Subject.Start.Byte >= outer.Start.Byte && e.Subject.Start.Byte < max(outer.End.Byte, outer.Start.Byte+1) {
			return true
		}
	}
	return false
}

func baseDirOf(filename string) string {
	dir := "."
	if filename != EmbeddedName {
		dir = filepath.Dir(filename)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	return abs
}

func (d *decoder) listen(cfg *Config, s *listenSpec) {
	l := &cfg.Listen
	l.HTTP = DefaultHTTP
	l.Metrics = true
	l.Limits = DefaultLimits()
	if s == nil {
		return
	}
	if s.Metrics != nil {
		l.Metrics = *s.Metrics
	}
	if s.AllowUnauth != nil {
		l.AllowUnauthenticated = *s.AllowUnauth
	}
	if s.HTTP != nil {
		l.HTTP = *s.HTTP
		cfg.httpFrom, cfg.httpRange = pos(s.HTTPRange), s.HTTPRange
		if msg := checkHTTPAddr(l.HTTP); msg != "" {
			d.problem(s.HTTPRange, msg)
		}
	}
	if s.Token != nil {
		l.Tokens = append(l.Tokens, *s.Token)
	}
	l.Tokens = nonEmpty(append(l.Tokens, s.Tokens...))
	l.AllowedOrigins = s.AllowedOrigins
	l.AllowedHosts = s.AllowedHosts
	d.oauth(l, s.OAuth)
	d.limits(l, s)
	if s.SessionKey != nil {
		keys, msg := parseSessionKeys(*s.SessionKey)
		if msg != "" {
			d.problem(s.SessionKeyRng, msg)
		}
		l.SessionKeys = keys
	}

	switch {
	case s.TLSCert != nil && s.TLSKey == nil:
		d.problem(s.TLSCertRange, "tls_cert is set without tls_key; set both or neither")
	case s.TLSKey != nil && s.TLSCert == nil:
		d.problem(s.TLSKeyRange, "tls_key is set without tls_cert; set both or neither")
	case s.TLSCert != nil:
		l.TLSCert = resolvePath(d.baseDir, *s.TLSCert)
		l.TLSKey = resolvePath(d.baseDir, *s.TLSKey)
	}
}

// nonEmpty trims tokens and drops empty ones: `token = env("TOOLGATE_TOKEN", "")`
// means "no token unless one is set", never "accept an empty bearer token", and
// `token = file("token")` means the token, not the token and the file's final
// newline (a bearer token holds no white space, RFC 6750).
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (d *decoder) gateway(cfg *Config, s *gatewaySpec) {
	g := &cfg.Gateway
	*g = Gateway{
		CallTimeout:     DefaultCallTimeout,
		ShutdownGrace:   DefaultShutdownGrace,
		MaxRequestBytes: DefaultMaxRequestBytes,
		StateDir:        defaultStateDir(),
		LogLevel:        DefaultLogLevel,
		AuditLogMaxSize: DefaultAuditLogMaxSize,
		AuditLogKeep:    DefaultAuditLogKeep,
		NativePrompts:   true,
		NativeResources: true,
	}
	if s == nil {
		return
	}
	if s.NativePrompts != nil {
		g.NativePrompts = *s.NativePrompts
	}
	if s.NativeResources != nil {
		g.NativeResources = *s.NativeResources
	}
	d.audit(g, s)
	d.duration(&g.CallTimeout, "call_timeout", s.CallTimeout, s.CallTimeoutRange, true)
	d.duration(&g.MaxCallTimeout, "max_call_timeout", s.MaxCallTimeout, s.MaxCallTimeoutRange, true)
	d.duration(&g.ShutdownGrace, "shutdown_grace", s.ShutdownGrace, s.ShutdownGraceRange, false)
	if s.MaxRequestBytes != nil {
		g.MaxRequestBytes = *s.MaxRequestBytes
		if msg := checkMaxRequestBytes(g.MaxRequestBytes); msg != "" {
			d.problem(s.MaxRequestBytesRange, msg)
		}
	}
	if s.StateDir != nil {
		g.StateDir = resolvePath(d.baseDir, *s.StateDir)
	}
	if s.LogLevel != nil {
		lvl, msg := checkLogLevel(*s.LogLevel)
		if msg != "" {
			d.problem(s.LogLevelRange, msg)
		}
		g.LogLevel = lvl
	}
	if s.AuditLog != nil && *s.AuditLog != "" {
		g.AuditLog = resolvePath(d.baseDir, *s.AuditLog)
	}
}

func (d *decoder) telemetry(cfg *Config, s *telemetrySpec) {
	if s == nil || s.OTLPEndpoint == nil {
		return
	}
	cfg.Telemetry.OTLPEndpoint = *s.OTLPEndpoint
	if msg := checkOTLPEndpoint(*s.OTLPEndpoint); msg != "" {
		d.problem(s.OTLPEndpointRange, msg)
	}
}

// defaultStateDir follows the XDG base directory spec; without a home directory (a bare
// container) it falls back to the temporary directory rather than the working one.
func defaultStateDir() string {
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "toolgate")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "toolgate")
	}
	return filepath.Join(os.TempDir(), "toolgate")
}

// duration sets *dst from an HCL duration string when one was written.
func (d *decoder) duration(dst *time.Duration, name string, s *string, rng hcl.Range, positive bool) {
	if s == nil {
		return
	}
	v, msg := parseDuration(name, *s, positive)
	if msg != "" {
		d.problem(rng, msg)
		return
	}
	*dst = v
}

func (d *decoder) plugin(s *pluginSpec) Plugin {
	p := Plugin{
		Name:      s.Name,
		Args:      s.Args,
		AutoStart: s.AutoStart,
		Env:       s.Env,
		Labels:    s.Labels,
		Disabled:  s.Disabled,
		DeclRange: s.DefRange,
		PathRange: s.PathRange,

		Destructive: DestructiveConfirm,
	}
	if s.Type != nil {
		p.Type = *s.Type
	}
	if s.Path != nil && *s.Path != "" {
		p.Path = resolvePath(d.baseDir, *s.Path)
	}
	d.duration(&p.IdleTimeout, "idle_timeout", s.IdleTimeout, s.IdleTimeoutRange, false)
	d.duration(&p.CallTimeout, "call_timeout", s.CallTimeout, s.CallTimeoutRange, false)
	d.duration(&p.StartTimeout, "start_timeout", s.StartTimeout, s.StartTimeoutRng, true)
	if s.Destructive != nil {
		v := strings.ToLower(strings.TrimSpace(*s.Destructive))
		if slices.Contains(destructivePolicies, v) {
			p.Destructive = v
		} else {
			d.problem(s.DestructiveRange, unknownMsg("destructive policy", *s.Destructive, destructivePolicies))
		}
	}

	raw, ranges, diags := pluginConfigJSON(s.Config, d.ctx)
	d.diags = append(d.diags, diags...)
	p.Config = raw
	p.FieldRange = ranges.lookupFunc(s.DefRange)
	return p
}
