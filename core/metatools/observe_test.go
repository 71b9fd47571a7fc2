package metatools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
)

// recorder keeps every record it is told of, and the context each call ran
// under, to show the call used the observer's context.
type recorder struct {
	mu      sync.Mutex
	records []CallRecord
	sawKey  []bool
}

type ctxKey struct{}

func (r *recorder) CallStarted(ctx context.Context) (context.Context, func(CallRecord)) {
	ctx = context.WithValue(ctx, ctxKey{}, true)
	return ctx, func(rec CallRecord) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.records = append(r.records, rec)
		r.sawKey = append(r.sawKey, ctx.Value(ctxKey{}) == true)
	}
}

func (r *recorder) last() CallRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.records[len(r.records)-1]
}

// observedGateway runs hello and the misbehaving test plugin under a
// manager, with rec observing call_tool. The first crash opens a plugin's
// circuit, so the call after it is refused at once.
func observedGateway(t *testing.T, rec *recorder) Tool {
	t.Helper()
	cat := catalog.New()
	mgr := runPlugins(t, cat, supervisor.Policy{
		BackoffBase: time.Hour, BackoffMax: time.Hour, MaxCrashes: 1, CrashWindow: time.Minute, Cooldown: time.Hour,
		PingEvery: time.Hour, PingTimeout: time.Second, MaxMissedPings: 3, StopGrace: time.Second, LearnIdle: time.Hour,
	}, []supervisor.Spec{
		{Name: "hello", Path: helloPlugin, AutoStart: true},
		{Name: "bad", Path: buildTestPlugin(t), AutoStart: true},
		{Name: "gone", Path: "/nonexistent/toolgate-plugin", AutoStart: true},
	}, "hello", "bad")
	h := New(cat, mgr, func(string) time.Duration { return 5 * time.Second }, hclog.NewNullLogger())
	h.Observer = rec
	call, ok := toolsByName(h)["call_tool"]
	if !ok {
		t.Fatal("no call_tool")
	}
	return call
}

func TestObserverHearsEveryOutcome(t *testing.T) {
	rec := &recorder{}
	call := observedGateway(t, rec)
	cases := []struct {
		args string
		want CallRecord // Duration is checked apart
		text string     // in Error
	}{
		{`{"name":"x_hello_greet","arguments":{"name":"Ada"}}`,
			CallRecord{Name: "x_hello_greet", Tool: "x_hello_greet", Plugin: "hello", Outcome: OutcomeOK, ArgumentBytes: 14}, ""},
		{`{"name":"x_hello_greet","arguments":{"name":" "}}`,
			CallRecord{Name: "x_hello_greet", Tool: "x_hello_greet", Plugin: "hello", Outcome: OutcomeToolError, ArgumentBytes: 12}, "name must not be empty"},
		{`{"name":"x_hello_greet","arguments":{"name":"Ada","language":"es"}}`,
			CallRecord{Name: "x_hello_greet", Tool: "x_hello_greet", Plugin: "hello", Outcome: OutcomeInvalidArguments, ArgumentBytes: 30}, "value must be one of"},
		{`{"arguments":{}}`,
			CallRecord{Outcome: OutcomeInvalidArguments, ArgumentBytes: 2}, `argument "name": is required`},
		{`{"name":"x_hello_greet","arguments":[1]}`,
			CallRecord{Name: "x_hello_greet", Outcome: OutcomeInvalidArguments, ArgumentBytes: 3}, "must be an object"},
		{`{"name":"x_hello_gret"}`,
			CallRecord{Name: "x_hello_gret", Outcome: OutcomeUnknownTool}, `did you mean "x_hello_greet"`},
		{`{"name":"x_hello_count","arguments":{"to":100,"delay_ms":100},"timeout_seconds":0.2}`,
			CallRecord{Name: "x_hello_count", Tool: "x_hello_count", Plugin: "hello", Outcome: OutcomeTimeout, ArgumentBytes: 25}, "timed out after 200ms"},
		{`{"name":"core_plugin_get","arguments":{"name":"hello"}}`,
			CallRecord{Name: "core_plugin_get", Tool: "core_plugin_get", Outcome: OutcomeOK, ArgumentBytes: 16}, ""},
		{`{"name":"x_bad_exit","arguments":{"code":3}}`,
			CallRecord{Name: "x_bad_exit", Tool: "x_bad_exit", Plugin: "bad", Outcome: OutcomeCrash, ArgumentBytes: 10}, "crashed (exit status 3)"},
		{`{"name":"x_bad_echo","arguments":{"text":"x"}}`,
			CallRecord{Name: "x_bad_echo", Tool: "x_bad_echo", Plugin: "bad", Outcome: OutcomeUnavailable, ArgumentBytes: 12}, `plugin "bad" is failed`},
		{`{"name":"x_gone_anything"}`,
			CallRecord{Name: "x_gone_anything", Plugin: "gone", Outcome: OutcomeUnavailable}, `plugin "gone" failed to start`},
		{`{"name":"x_nosuchplugin_anything"}`,
			CallRecord{Name: "x_nosuchplugin_anything", Outcome: OutcomeUnknownTool}, `unknown tool`},
	}
	for _, c := range cases {
		res, err := call.Handle(context.Background(), json.RawMessage(c.args), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		got := rec.last()
		if got.Duration <= 0 || got.Duration > 10*time.Second {
			t.Errorf("%s: duration %s", c.args, got.Duration)
		}
		if !strings.Contains(got.Error, c.text) || (c.text == "") != (got.Error == "") {
			t.Errorf("%s: error %q, want it to contain %q", c.args, got.Error, c.text)
		}
		if res.IsError && got.Error != text(res) {
			t.Errorf("%s: error %q is not the answer's text %q", c.args, got.Error, text(res))
		}
		got.Duration, got.Error = 0, ""
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.args, got, c.want)
		}
	}
	if len(rec.records) != len(cases) {
		t.Fatalf("%d records for %d calls", len(rec.records), len(cases))
	}
	for i, saw := range rec.sawKey {
		if !saw {
			t.Errorf("call %d did not end under the observer's context", i)
		}
	}
}

func TestCallCancelledByClientIsCancelled(t *testing.T) {
	rec := &recorder{}
	call := observedGateway(t, rec)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := call.Handle(ctx, json.RawMessage(`{"name":"x_hello_count","arguments":{"to":100,"delay_ms":100}}`), nil)
	if err != nil || !res.IsError {
		t.Fatalf("cancelled call: %+v, %v", res, err)
	}
	if got := rec.last(); got.Outcome != OutcomeCancelled || got.Plugin != "hello" {
		t.Fatalf("record %+v", got)
	}
}
