package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/toolgate/toolgate/internal/similar"
	"github.com/toolgate/toolgate/sdk/schema"
)

// SchemaSource returns the JSON Schema a plugin describes its config block
// with, or nil when it describes none. Finding it may mean starting the
// plugin, so it is the caller's to supply.
type SchemaSource func(p *Plugin) (json.RawMessage, error)

// CheckPlugins reports what is wrong in the plugin blocks that decoding alone
// cannot see, before any plugin runs: an executable that is not there (a
// path, or an mcp-stdio command), and settings the plugin's config schema
// refuses. Every problem comes back at once in an *Error, each at the
// file:line:col it was written at.
func (c *Config) CheckPlugins(schemaOf SchemaSource) error {
	var diags hcl.Diagnostics
	for i := range c.Plugins {
		p := &c.Plugins[i]
		if p.Disabled {
			continue
		}
		found := true
		if p.Path != "" {
			if msg := checkExecutable(p.Path); msg != "" {
				diags = append(diags, errorf(p.PathRange, "plugin %q: %s", p.Name, msg))
				found = false
			}
		}
		if p.Type == "mcp-stdio" {
			if msg := checkCommand(p); msg != "" {
				diags = append(diags, errorf(p.fieldRange("command"), "plugin %q: config.command: %s", p.Name, msg))
			}
		}
		if !found || schemaOf == nil {
			continue
		}
		diags = append(diags, checkSettings(p, schemaOf)...)
	}
	if len(diags) == 0 {
		return nil
	}
	sortDiags(diags)
	return &Error{Diagnostics: diags}
}

func (p *Plugin) fieldRange(path string) hcl.Range {
	if p.FieldRange == nil {
		return p.DeclRange
	}
	return p.FieldRange(path)
}

// checkSettings validates a plugin's config block against the schema it
// describes.
func checkSettings(p *Plugin, schemaOf SchemaSource) hcl.Diagnostics {
	doc, err := schemaOf(p)
	if err != nil {
		return hcl.Diagnostics{errorf(p.DeclRange, "plugin %q: cannot learn its config schema: %v", p.Name, err)}
	}
	if len(doc) == 0 {
		return nil
	}
	s, err := schema.Compile(doc)
	if err != nil {
		return hcl.Diagnostics{errorf(p.DeclRange, "plugin %q describes its config with a schema that does not compile: %v", p.Name, err)}
	}
	var se *schema.Error
	if err := s.Validate(p.Config); !errors.As(err, &se) {
		if err != nil {
			return hcl.Diagnostics{errorf(p.DeclRange, "plugin %q: %v", p.Name, err)}
		}
		return nil
	}
	var diags hcl.Diagnostics
	for _, pr := range se.Problems {
		msg := pr.Message
		key := strings.Join(splitFieldPath(pr.Path), ".")
		switch {
		case pr.Unknown && pr.Suggestion != "":
			msg = fmt.Sprintf("unknown setting; did you mean %q?", pr.Suggestion)
		case pr.Unknown && slices.Contains(blockHomes()[key], "a plugin block"):
			msg = fmt.Sprintf("unknown setting; %s belongs in the plugin block, outside config {}", key)
		case pr.Unknown && takesNoSettings(doc):
			msg = "unknown setting; this plugin takes no configuration, so leave config {} out"
		case pr.Unknown:
			msg = "unknown setting"
		}
		where := "config"
		if pr.Path != "" {
			where += "." + key
		}
		diags = append(diags, errorf(p.fieldRange(pr.Path), "plugin %q: %s: %s", p.Name, where, msg))
	}
	return diags
}

// takesNoSettings reports whether a config schema refuses every setting, as
// the SDK describes a plugin with neither Config nor Configure.
func takesNoSettings(doc json.RawMessage) bool {
	var s struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	return json.Unmarshal(doc, &s) == nil && len(s.Properties) == 0 &&
		s.AdditionalProperties != nil && !*s.AdditionalProperties
}

// checkExecutable says what keeps path from being run, or "".
func checkExecutable(path string) string {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg := fmt.Sprintf("executable %s does not exist", path)
		if near := nearFile(path); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return msg
	case err != nil:
		return err.Error()
	case st.IsDir():
		return fmt.Sprintf("%s is a directory, not an executable", path)
	case st.Mode().Perm()&0o111 == 0:
		return fmt.Sprintf("%s is not executable (chmod +x)", path)
	}
	return ""
}

// nearFile is the file beside path whose name is closest to path's, for a
// typo in a file name. Directories are not offered: "/nope" is not a typo
// of "/home".
func nearFile(path string) string {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return ""
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(filepath.Dir(path), e.Name())); err == nil && !st.IsDir() {
			names = append(names, e.Name())
		}
	}
	if s := similar.Closest(filepath.Base(path), names); s != "" {
		return filepath.Join(filepath.Dir(path), s)
	}
	return ""
}

// checkCommand finds an mcp-stdio plugin's command the way the plugin will:
// a name through PATH (the config's env, else the plugin's, else the
// gateway's), a path against the config's cwd.
func checkCommand(p *Plugin) string {
	var cfg struct {
		Command string            `json:"command"`
		Cwd     string            `json:"cwd"`
		Env     map[string]string `json:"env"`
	}
	if json.Unmarshal(p.Config, &cfg) != nil || strings.TrimSpace(cfg.Command) == "" {
		return "" // the plugin's own check words these
	}
	if strings.Contains(cfg.Command, "/") {
		path := cfg.Command
		if !filepath.IsAbs(path) && cfg.Cwd != "" {
			path = filepath.Join(cfg.Cwd, path)
		}
		return checkExecutable(path)
	}
	pathVar := cfg.Env["PATH"]
	if pathVar == "" {
		pathVar = p.Env["PATH"]
	}
	if pathVar == "" {
		pathVar = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			dir = "."
		}
		if checkExecutable(filepath.Join(dir, cfg.Command)) == "" {
			return ""
		}
	}
	return fmt.Sprintf("%q is not an executable in PATH (%s)", cfg.Command, pathVar)
}
