package pluginhost

import "github.com/hashicorp/go-hclog"

// libLogger is the logger go-plugin gets. Its own lines are about its
// plumbing and about the process's end, which it logs as an error whenever
// the exit status is not 0: also when the host killed the process on purpose
// (a stop while the plugin was starting, a plugin that ignored the polite
// stop), where an operator would read an error for something that went as
// intended. The host logs the end itself, knowing whether it asked for it
// (Plugin.logExit), so go-plugin's own lines go to Debug. What the plugin
// writes to stderr, which go-plugin logs through a Named logger at the
// level each line carries, passes unchanged.
type libLogger struct{ hclog.Logger }

func (l libLogger) Log(level hclog.Level, msg string, args ...any) {
	l.Logger.Log(min(level, hclog.Debug), msg, args...)
}

func (l libLogger) Info(msg string, args ...any)  { l.Logger.Debug(msg, args...) }
func (l libLogger) Warn(msg string, args ...any)  { l.Logger.Debug(msg, args...) }
func (l libLogger) Error(msg string, args ...any) { l.Logger.Debug(msg, args...) }

func (l libLogger) With(args ...any) hclog.Logger { return libLogger{l.Logger.With(args...)} }

// logExit says how the plugin process ended: at Info when the host asked
// for it (a stop, a kill of a start that failed or was given up), as a
// warning when a polite stop had to end in a kill (the plugin did not shut
// down within its grace: its author should know), as an error when the
// host did not ask: the plugin crashed or something else killed it. A kill
// the host made for a reason of its own (KillFor) is a warning that gives it.
func (p *Plugin) logExit(pid int, status string, signalled, asked bool) {
	if why := p.killedFor.Load(); why != nil && asked {
		p.log.Warn("plugin process killed: "+*why, "pid", pid, "how", status)
		return
	}
	switch {
	case asked && signalled && p.polite.Load():
		p.log.Warn("plugin process did not shut down when asked and was killed", "pid", pid, "how", status)
		return
	case asked:
		p.log.Info("plugin process stopped as asked", "pid", pid, "how", status)
		return
	}
	p.log.Error("plugin process exited unexpectedly", "pid", pid, "how", status)
}
