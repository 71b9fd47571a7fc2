package main

import (
	"testing"

	"github.com/toolgate/toolgate/core/supervisor"
)

// TestProcessEnded: only a transition that leaves a process gone ends the
// tasks it kept, and the words say what became of the plugin.
func TestProcessEnded(t *testing.T) {
	for _, tc := range []struct {
		from, to supervisor.State
		reason   string
		want     string // "": no process ended
	}{
		{supervisor.Running, supervisor.Restarting, "plugin process killed by signal SIGKILL; next try in 0s", "restarted (plugin process killed by signal SIGKILL; next try in 0s)"},
		{supervisor.Running, supervisor.Failed, "5 failures within 5m0s", "failed (5 failures within 5m0s)"},
		{supervisor.Stopping, supervisor.Starting, "", "restarted"},
		{supervisor.Stopping, supervisor.Stopped, "stopped by the operator", "was stopped (stopped by the operator)"},
		{supervisor.Stopping, supervisor.Lazy, "idle for 5m0s", "was stopped (idle for 5m0s)"},
		{supervisor.Running, supervisor.Stopping, "restart requested", ""},
		{supervisor.Starting, supervisor.Running, "pid 7", ""},
		{supervisor.Starting, supervisor.Restarting, "handshake failed", ""},
		{supervisor.Lazy, supervisor.Starting, "", ""},
	} {
		how, ok := processEnded(supervisor.Event{Plugin: "p", From: tc.from, To: tc.to, Reason: tc.reason})
		if how != tc.want || ok != (tc.want != "") {
			t.Errorf("%s → %s: %q, %v; want %q", tc.from, tc.to, how, ok, tc.want)
		}
	}
}
