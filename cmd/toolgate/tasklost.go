package main

import "github.com/toolgate/toolgate/core/supervisor"

// processEnded says how transition e ended its plugin's process, and every
// task the process kept with it, as the gateway words it to those tasks'
// clients: "restarted (plugin process signal: killed; next try in 0s)".
// ok is false when e ended no process: a process leaves Running, or
// Stopping once its calls drained, only when it is gone.
func processEnded(e supervisor.Event) (how string, ok bool) {
	if e.From != supervisor.Running && e.From != supervisor.Stopping {
		return "", false
	}
	switch e.To {
	case supervisor.Running, supervisor.Stopping:
		return "", false
	case supervisor.Restarting, supervisor.Starting:
		how = "restarted"
	case supervisor.Failed:
		how = "failed"
	default:
		how = "was stopped"
	}
	if e.Reason != "" {
		how += " (" + e.Reason + ")"
	}
	return how, true
}
