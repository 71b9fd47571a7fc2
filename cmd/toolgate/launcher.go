package main

import (
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/core/supervisor"
)

// mcpStdioWrapper is the executable that serves mcp-stdio plugins, looked for
// beside toolgate's own. It holds only that plugin, so each wrapper process
// has about 12 MB less RSS than a re-executed toolgate (though it shares no
// pages with the gateway: BENCHMARKS.md, "mcp-stdio wrapper memory");
// without it (a `go install` of toolgate alone) toolgate re-executes itself.
const mcpStdioWrapper = "toolgate-mcp-stdio"

// launcher says which executable runs each built-in plugin type.
type launcher struct {
	self     string // toolgate, re-executed as `toolgate plugin serve TYPE`
	mcpStdio string // toolgate-mcp-stdio beside self; "" when there is none

	mu     sync.Mutex
	warned map[string]bool // wrapper versions already warned about
}

// findLauncher looks once for the wrapper beside self, which is the path
// os.Executable gives, symlinks followed, so a toolgate reached through a
// link in ~/bin finds the wrapper installed beside the real file.
func findLauncher(self string) *launcher {
	l := &launcher{self: self, warned: map[string]bool{}}
	path := filepath.Join(filepath.Dir(self), mcpStdioWrapper)
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
		l.mcpStdio = path
	}
	return l
}

// command is the executable and arguments that serve a built-in plugin type.
func (l *launcher) command(pluginType string) (string, []string) {
	if pluginType == "mcp-stdio" && l.mcpStdio != "" {
		return l.mcpStdio, nil
	}
	return l.self, []string{"plugin", "serve", pluginType}
}

// logChoice says once, at start, how the config's mcp-stdio plugins will run.
func (l *launcher) logChoice(cfg *config.Config, logger hclog.Logger) {
	if !slices.ContainsFunc(cfg.Plugins, func(p config.Plugin) bool { return p.Type == "mcp-stdio" && p.Path == "" && !p.Disabled }) {
		return
	}
	if l.mcpStdio != "" {
		logger.Debug("mcp-stdio plugins run "+mcpStdioWrapper, "path", l.mcpStdio)
		return
	}
	logger.Info(mcpStdioWrapper+" is not beside toolgate; mcp-stdio plugins run toolgate itself, which takes more memory per plugin",
		"looked_for", filepath.Join(filepath.Dir(l.self), mcpStdioWrapper))
}

// checkVersion warns when a wrapper process that just started reports a
// version other than the gateway's: a wrapper left from an older install
// beside a newer toolgate. Each differing version is warned about once.
func (l *launcher) checkVersion(spec supervisor.Spec, st supervisor.Status, logger hclog.Logger) {
	if l.mcpStdio == "" || spec.Path != l.mcpStdio || st.Info.Version == version {
		return
	}
	l.mu.Lock()
	seen := l.warned[st.Info.Version]
	l.warned[st.Info.Version] = true
	l.mu.Unlock()
	if seen {
		return
	}
	logger.Warn("the mcp-stdio wrapper is from another build than toolgate; install both from the same build",
		"wrapper", l.mcpStdio, "wrapper_version", st.Info.Version, "toolgate_version", version, "plugin", spec.Name)
}
