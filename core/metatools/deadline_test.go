package metatools

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
)

// A call's deadline counts from when the call arrived: the wait for a lazy
// plugin that has not told its tools yet is part of it, not added to it.
func TestCallDeadlineIncludesThePluginStart(t *testing.T) {
	bin := buildTestPlugin(t)
	cat := catalog.New()
	// A plugin that takes about a second to start, and has never run.
	mgr := runPlugins(t, cat, supervisor.Policy{}, []supervisor.Spec{{Name: "slow", Path: "/bin/sh", Args: []string{"-c", `sleep 1; exec "$0"`, bin}}})
	tools := toolsByName(New(cat, mgr, func(string) time.Duration { return time.Minute }, hclog.NewNullLogger()))
	if cat.Known("slow") {
		t.Fatal("the plugin's tools are known before any call; the test needs a plugin that has not started")
	}
	const timeout = 2 * time.Second
	start := time.Now()
	res, _ := invoke(t, tools, "call_tool", `{"name":"x_slow_sleep","arguments":{"ms":3000},"timeout_seconds":2}`)
	took := time.Since(start)
	if !res.IsError || !strings.Contains(text(res), "timed out after 2s") {
		t.Errorf("a 3 s call with a 2 s deadline answered %q, want that it timed out", text(res))
	}
	if took > timeout+600*time.Millisecond {
		t.Errorf("a call with timeout_seconds 2 answered after %s: the plugin's start did not count against its deadline", took.Round(time.Millisecond))
	}
}
