package metatools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/internal/clip"
	"github.com/toolgate/toolgate/internal/similar"
	"github.com/toolgate/toolgate/sdk/protov1"
)

type callArgs struct {
	Name           string          `json:"name"`
	Arguments      json.RawMessage `json:"arguments"`
	TimeoutSeconds *float64        `json:"timeout_seconds"`
}

// callTool runs a plugin tool (or a core tool) and answers the backend's result
// itself. Every failure on the way is an isError result that says what and
// where; nothing waits past the call's deadline.
func (h *Handlers) callTool(ctx context.Context, raw json.RawMessage, events protov1.CallEvents) (*protov1.Result, error) {
	return h.observe(ctx, raw, events, h.runCall)
}

// runCall is callTool, noting in rec what the call was and, where only it
// knows, how it ended.
func (h *Handlers) runCall(ctx context.Context, raw json.RawMessage, events protov1.CallEvents, rec *CallRecord) (*protov1.Result, error) {
	// The call's deadline counts from here: waiting for a plugin that has
	// not told its tools yet is part of it, not added to it.
	arrived := time.Now()
	var in callArgs
	if err := decode("call_tool", raw, &in); err != nil {
		return nil, err
	}
	rec.Name, rec.ArgumentBytes = in.Name, len(in.Arguments)
	if in.Name == "" {
		return nil, &ArgumentError{Tool: "call_tool", Argument: "name", Problem: "is required (the tool to run, e.g. from filter_tools)"}
	}
	if a := strings.TrimSpace(string(in.Arguments)); a != "" && a != "null" && a[0] != '{' {
		return nil, &ArgumentError{Tool: "call_tool", Argument: "arguments", Problem: "must be an object of the tool's arguments"}
	}
	var asked time.Duration
	if in.TimeoutSeconds != nil {
		d, err := h.askedTimeout(*in.TimeoutSeconds)
		if err != nil {
			return nil, err
		}
		asked = d
	}
	if core, ok := h.core[in.Name]; ok {
		rec.Tool = in.Name
		return core.Handle(ctx, in.Arguments, events)
	}
	t, missing, outcome := h.resolve(ctx, in.Name, asked)
	if t == nil {
		rec.Outcome = outcome
		if plugin, ok := catalog.PluginOf(in.Name); ok && outcome == OutcomeUnavailable {
			if _, configured := h.Plugins.Get(plugin); configured {
				// A plugin that failed before it told its tools: configured
				// names only, so the plugin label stays bounded.
				rec.Plugin = plugin
			}
		}
		return missing, nil
	}
	rec.Tool, rec.Plugin = t.ID, t.Plugin
	if err := t.ValidateArguments(in.Arguments); err != nil {
		rec.Outcome = OutcomeInvalidArguments
		var ae *catalog.ArgumentError
		if errors.As(err, &ae) {
			return errorResult("%s\nexpected arguments (input schema of %s): %s", ae.Error(), t.ID, compact(t.Def.InputSchema)), nil
		}
		return errorResult("%v", err), nil
	}
	sup, ok := h.Plugins.Get(t.Plugin)
	if !ok {
		rec.Outcome = OutcomeUnavailable
		return errorResult("tool %s belongs to plugin %q, which is not configured", t.ID, t.Plugin), nil
	}

	timeout := h.CallTimeout(t.Plugin)
	if asked > 0 {
		timeout = asked
	}
	args := in.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	// The user has as long to confirm as the call has to run, and the time
	// they take is not the call's: its deadline counts from its arrival
	// (the wait for its plugin's start included), confirmation left out.
	var confirming time.Duration
	if h.mayRefuse(t) {
		asking := time.Now()
		askCtx, cancelAsk := context.WithTimeout(ctx, timeout)
		refused, outcome := h.permit(askCtx, t, args, false)
		cancelAsk()
		if refused != nil {
			rec.Outcome = outcome
			return refused, nil
		}
		confirming = time.Since(asking)
	}
	callCtx, cancel := context.WithDeadline(ctx, arrived.Add(timeout+confirming))
	defer cancel()
	retry := t.Def.Annotations.IsReadOnly() || t.Def.Annotations.IsIdempotent()
	// The client the call came from, when the gateway can ask it things,
	// goes with the call: the plugin may ask it for sampling, elicitation or
	// roots while the call runs, and only then.
	req := &protov1.CallRequest{Name: t.Def.Name, Arguments: args, WantProgress: wantsProgress(events), Peer: protov1.PeerFrom(ctx)}
	res, err := sup.Call(callCtx, req, events, retry)
	if err == nil {
		return res, nil
	}
	res, rec.Outcome = h.callFailure(ctx, callCtx, t, timeout, err)
	// The outcome, typed, for a client that words its own advice (the CLI
	// says --timeout where the text says timeout_seconds).
	res.Meta, _ = json.Marshal(map[string]Outcome{OutcomeMetaKey: rec.Outcome})
	return res, nil
}

// OutcomeMetaKey is the _meta key of a failed call_tool answer that names
// its Outcome when the plugin gave no answer.
const OutcomeMetaKey = "toolgate/outcome"

// ProgressWanter is implemented by call events that know whether their client
// asked for progress. A plugin not asked for progress neither tracks nor sends
// it (mcp-stdio then sends its server no progress token); events without the
// method are assumed to want it.
type ProgressWanter interface {
	WantsProgress() bool
}

func wantsProgress(events protov1.CallEvents) bool {
	if events == nil {
		return false
	}
	if w, ok := events.(ProgressWanter); ok {
		return w.WantsProgress()
	}
	return true
}

// toolOfFailedPlugin answers a name the catalog lacks because its plugin
// failed before it could list its tools: the plugin and why it failed say
// more than "unknown tool".
func (h *Handlers) toolOfFailedPlugin(name string) (*protov1.Result, bool) {
	plugin, ok := catalog.PluginOf(name)
	if !ok || h.Catalog.Known(plugin) {
		return nil, false
	}
	sup, ok := h.Plugins.Get(plugin)
	if !ok {
		return nil, false
	}
	st := sup.Status()
	if (st.State != supervisor.Failed && st.State != supervisor.Restarting) || st.LastError == "" {
		return nil, false
	}
	return errorResult("cannot call %s: plugin %q failed to start, so its tools are unknown: %s\n(fix it, then call core_plugin_restart with {\"name\": %q})",
		name, plugin, st.LastError, plugin), true
}

// resolve finds a plugin tool by name, waiting for a plugin that has not told
// its tools yet (awaitTools). When there is no such tool, missing says why:
// the plugin failed or did not start, or the name is unknown (with the
// closest names).
func (h *Handlers) resolve(ctx context.Context, name string, asked time.Duration) (t *catalog.Tool, missing *protov1.Result, outcome Outcome) {
	if t, ok := h.Catalog.Tool(name); ok {
		return t, nil, ""
	}
	notStarted := h.awaitTools(ctx, name, asked)
	if t, ok := h.Catalog.Tool(name); ok {
		return t, nil, ""
	}
	if res, ok := h.toolOfFailedPlugin(name); ok {
		return nil, res, OutcomeUnavailable
	}
	if notStarted != nil {
		return nil, notStarted, OutcomeUnavailable
	}
	return nil, h.unknownTool(name), OutcomeUnknownTool
}

// awaitTools starts the plugin a tool name points at when the plugin has
// not told its tools yet (lazy with no cached manifest, still starting, or
// lazy and replaced by a new build since it told) and waits, within the
// call's deadline, until it runs. Without it the first call after the
// gateway starts, or after a new build was put in place, would answer
// "unknown tool" for a tool that exists. It answers only when the plugin
// did not start.
func (h *Handlers) awaitTools(ctx context.Context, name string, asked time.Duration) *protov1.Result {
	plugin, ok := catalog.PluginOf(name)
	if !ok || !h.Plugins.Untold(plugin) {
		return nil
	}
	timeout := h.CallTimeout(plugin)
	if asked > 0 {
		timeout = asked
	}
	startCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := h.Plugins.AwaitCatalog(startCtx, plugin); err != nil {
		if errors.Is(startCtx.Err(), context.DeadlineExceeded) {
			return errorResult("cannot call %s: plugin %q did not start within %s, so its tools are not known yet (core_plugin_get shows its state)", name, plugin, timeout)
		}
		return errorResult("cannot call %s: %v", name, err)
	}
	return nil
}

// DefaultMaxCallTimeout bounds timeout_seconds when Handlers.MaxCallTimeout is 0.
const DefaultMaxCallTimeout = time.Hour

// minCallTimeout is the shortest deadline timeout_seconds may ask for: a
// shorter one would end the call before it reached the plugin.
const minCallTimeout = time.Millisecond

// askedTimeout turns call_tool's timeout_seconds into a deadline within the
// allowed range, comparing in seconds first: a large value times 1e9 does
// not fit a time.Duration and would wrap to a negative one.
func (h *Handlers) askedTimeout(seconds float64) (time.Duration, error) {
	limit := h.maxCallTimeout()
	if seconds < minCallTimeout.Seconds() || seconds > limit.Seconds() {
		return 0, &ArgumentError{Tool: "call_tool", Argument: "timeout_seconds", Problem: fmt.Sprintf(
			"must be from %g to %g seconds (the gateway's max_call_timeout is %s); got %g",
			minCallTimeout.Seconds(), limit.Seconds(), limit, seconds)}
	}
	d := time.Duration(seconds * float64(time.Second))
	if d <= 0 || d > limit {
		d = limit // rounding at the top of the range
	}
	return d, nil
}

func (h *Handlers) maxCallTimeout() time.Duration {
	if h.MaxCallTimeout > 0 {
		return h.MaxCallTimeout
	}
	return DefaultMaxCallTimeout
}

// deadlineSlack is how close to its deadline a call the plugin ended as
// cancelled must be for the gateway to take it as a timeout.
const deadlineSlack = 50 * time.Millisecond

// callFailure explains a call that got no answer from its plugin.
func (h *Handlers) callFailure(parent, callCtx context.Context, t *catalog.Tool, timeout time.Duration, err error) (*protov1.Result, Outcome) {
	var crash *supervisor.CrashError
	var unavailable *supervisor.UnavailableError
	var stopped *supervisor.StoppedError
	if parent.Err() == nil && callCtx.Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		// The plugin got the call's deadline too and may end the call a hair
		// before callCtx itself expires: wait that out, so a timeout is
		// reported as one and not as a failure of the plugin.
		if dl, ok := callCtx.Deadline(); ok && time.Until(dl) < deadlineSlack {
			<-callCtx.Done()
		}
	}
	switch {
	case parent.Err() != nil:
		return errorResult("call to %s was cancelled by the client", t.ID), OutcomeCancelled
	case errors.As(err, &crash):
		return errorResult("%v", crash), OutcomeCrash
	case errors.As(err, &stopped):
		// An operator's stop or the shutdown, not a fault: say which, unprefixed.
		return errorResult("%v", stopped), OutcomeUnavailable
	case errors.As(err, &unavailable) && !errors.Is(err, context.DeadlineExceeded):
		return errorResult("cannot call %s: %v", t.ID, unavailable), OutcomeUnavailable
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return errorResult("call to %s timed out after %s (plugin %q); pass \"timeout_seconds\" to call_tool to allow longer", t.ID, timeout, t.Plugin), OutcomeTimeout
	case errors.Is(err, protov1.ErrNotFound):
		return errorResult("plugin %q no longer has tool %q: %v", t.Plugin, t.Def.Name, clip.Message(err)), OutcomeUnknownTool
	}
	return errorResult("call to %s failed in plugin %q: %v", t.ID, t.Plugin, clip.Message(err)), OutcomeError
}

func compact(schema json.RawMessage) string {
	if len(schema) == 0 {
		return `{"type":"object"}`
	}
	var b bytes.Buffer
	if err := json.Compact(&b, schema); err != nil {
		return string(schema)
	}
	return b.String()
}

// DirectCallMessage is the answer to a tools/call of a name that is not a
// meta-tool. A plugin or core tool is reachable only through call_tool: the
// answer says so with a call to paste, its arguments as describe_tool's
// example has them. Any other name is unknown, and the answer names the
// meta-tool or plugin tool it probably means, rather than promising a tool
// that is not there.
func (h *Handlers) DirectCallMessage(name string) string {
	if args, ok := h.directExample(name); ok {
		name = clip.Name(name)
		var call bytes.Buffer
		enc := json.NewEncoder(&call)
		enc.SetEscapeHTML(false) // placeholders like <name> stay as describe_tool shows them
		_ = enc.Encode(map[string]any{"name": name, "arguments": args})
		return fmt.Sprintf("%s is not called directly: this gateway exposes its tools through meta-tools. "+
			"Call the tool call_tool with arguments %s (describe_tool {\"name\": %q} shows its arguments).", name, bytes.TrimSpace(call.Bytes()), name)
	}
	metas := h.metaToolNames()
	if near := similar.Closest(name, metas); near != "" {
		return fmt.Sprintf("unknown tool %q; did you mean %q? This gateway's tools are %s.", clip.Name(name), near, strings.Join(metas, ", "))
	}
	return h.unknownTool(name).Content[0].Text + "; a plugin tool is run through call_tool, not called directly"
}

// directExample returns the example arguments of a plugin or core tool, or
// empty ones for a name of a plugin that has not told its tools yet.
func (h *Handlers) directExample(name string) (map[string]any, bool) {
	if t, ok := h.Catalog.Tool(name); ok {
		return Example(t.Def.InputSchema), true
	}
	if c, ok := h.core[name]; ok {
		return h.coreExample(c), true
	}
	if plugin, ok := catalog.PluginOf(name); ok && h.Plugins != nil && !h.Catalog.Known(plugin) {
		if _, configured := h.Plugins.Get(plugin); configured {
			return map[string]any{}, true
		}
	}
	return nil, false
}
