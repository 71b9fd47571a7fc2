package metatools

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// permitHandlers runs the SDK's test plugin as "tp" (its exit tool says it
// is destructive, log says nothing of itself, echo is read-only) under the
// given policy, and returns call_tool, its handlers and the plugin's
// supervisor.
func permitHandlers(t *testing.T, policy Destructive) (Tool, *Handlers, *supervisor.Supervisor) {
	t.Helper()
	cat := catalog.New()
	spec := supervisor.Spec{Name: "tp", Path: buildTestPlugin(t), AutoStart: true, Env: []string{"PATH=" + os.Getenv("PATH")}}
	mgr := runPlugins(t, cat, supervisor.Policy{}, []supervisor.Spec{spec}, "tp")
	h := New(cat, mgr, func(string) time.Duration { return 10 * time.Second }, hclog.NewNullLogger())
	h.Permissions = func(plugin string) Permission {
		if plugin != "tp" {
			t.Errorf("permission asked for plugin %q", plugin)
		}
		return Permission{Destructive: policy, Where: "toolgate.hcl:3:1"}
	}
	sup, _ := mgr.Get("tp")
	return toolsByName(h)["call_tool"], h, sup
}

func callArgsJSON(tool string, args string) json.RawMessage {
	return json.RawMessage(`{"name":"` + tool + `","arguments":` + args + `}`)
}

// elicitAnswer is a client's answer to an elicitation.
func elicitAnswer(action string) *plugintest.Peer {
	return &plugintest.Peer{Elicit: plugintest.Answer(map[string]any{"action": action, "content": map[string]any{}})}
}

func TestConfirmAsksTheUserFirst(t *testing.T) {
	callTool, h, sup := permitHandlers(t, DestructiveConfirm)
	ctx := context.Background()

	// A read-only tool runs without asking, with or without a client.
	if res, err := callTool.Handle(ctx, callArgsJSON("x_tp_echo", `{"text":"hi"}`), nil); err != nil || res.IsError || text(res) != "hi" {
		t.Errorf("read-only tool without a client: %+v, %v", res, err)
	}

	// A tool that says nothing of itself counts as destructive: the user is
	// asked, with the tool and its arguments, and a yes runs it.
	yes := elicitAnswer("accept")
	res, err := callTool.Handle(protov1.WithPeer(ctx, yes), callArgsJSON("x_tp_log", `{"text":"rm -rf /tmp/x"}`), nil)
	if err != nil || res.IsError || text(res) != "logged" {
		t.Errorf("accepted: %+v, %v; want the tool's answer", res, err)
	}
	asked := yes.Requests()
	if len(asked) != 1 || asked[0].Method != protov1.MethodElicit {
		t.Fatalf("the client was sent %+v; want one elicitation", asked)
	}
	var params struct {
		Message         string         `json:"message"`
		RequestedSchema map[string]any `json:"requestedSchema"`
	}
	if err := json.Unmarshal(asked[0].Params, &params); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Allow x_tp_log to run?", "may delete or overwrite data", `"text":"rm -rf /tmp/x"`} {
		if !strings.Contains(params.Message, want) {
			t.Errorf("confirmation %q lacks %q", params.Message, want)
		}
	}
	if params.RequestedSchema["type"] != "object" {
		t.Errorf("requestedSchema %v; want an object schema", params.RequestedSchema)
	}

	// No: the tool does not run. exit would end the plugin process.
	for action, want := range map[string]string{
		"decline": "x_tp_exit was not run: the user declined it",
		"cancel":  `x_tp_exit was not run: the user dismissed its confirmation ("cancel")`,
	} {
		res, err := callTool.Handle(protov1.WithPeer(ctx, elicitAnswer(action)), callArgsJSON("x_tp_exit", `{"code":3}`), nil)
		if err != nil || !res.IsError || text(res) != want {
			t.Errorf("%s: %+v, %v; want an error result %q", action, res, err, want)
		}
	}

	// A client that cannot be asked is refused, and told what would permit it.
	res, err = callTool.Handle(ctx, callArgsJSON("x_tp_exit", `{"code":3}`), nil)
	for _, want := range []string{"x_tp_exit was not run", "its annotations say destructiveHint: true", "this client cannot be asked",
		`set destructive = "allow" in plugin "tp" (toolgate.hcl:3:1)`} {
		if err != nil || !res.IsError || !strings.Contains(text(res), want) {
			t.Errorf("no client: %+v, %v; want an error result containing %q", res, err, want)
		}
	}
	noForms := &plugintest.Peer{Elicit: plugintest.Answer(map[string]any{"action": "accept"}),
		Caps: &protov1.PeerCapabilities{Elicitation: true, ElicitationURL: true}}
	if res, _ := callTool.Handle(protov1.WithPeer(ctx, noForms), callArgsJSON("x_tp_exit", `{"code":3}`), nil); !strings.Contains(text(res), "this client cannot be asked") {
		t.Errorf("a client with URL elicitation only: %q; want it refused as one that cannot be asked", text(res))
	}
	if len(noForms.Requests()) != 0 {
		t.Error("a client without form elicitation was sent one")
	}

	// A client answering with an error: not run, and said why.
	broken := &plugintest.Peer{Elicit: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, &protov1.PeerError{Method: protov1.MethodElicit, Code: -32603, Message: "dialog crashed"}
	}}
	if res, _ := callTool.Handle(protov1.WithPeer(ctx, broken), callArgsJSON("x_tp_exit", `{"code":3}`), nil); !strings.Contains(text(res), "asking the user to confirm it failed: elicitation/create: dialog crashed") {
		t.Errorf("a client that fails to ask: %q", text(res))
	}

	if st := sup.Status(); st.Restarts != 0 || st.State != supervisor.Running {
		t.Errorf("plugin %s after %d restarts: a refused exit ran", st.State, st.Restarts)
	}

	// describe_tool tells the assistant beforehand.
	describeTool := toolsByName(h)["describe_tool"]
	for tool, want := range map[string]any{"x_tp_exit": "confirm", "x_tp_log": "confirm", "x_tp_echo": nil} {
		res, err := describeTool.Handle(ctx, json.RawMessage(`{"name":"`+tool+`"}`), nil)
		var out map[string]any
		if err != nil || json.Unmarshal([]byte(text(res)), &out) != nil {
			t.Fatalf("describe_tool %s: %v %q", tool, err, text(res))
		}
		if got := out["destructive_policy"]; got != want {
			t.Errorf("describe_tool %s: destructive_policy %v, want %v", tool, got, want)
		}
	}
}

func TestDenyAndAllow(t *testing.T) {
	ctx := context.Background()
	callTool, _, sup := permitHandlers(t, DestructiveDeny)
	yes := elicitAnswer("accept")
	res, err := callTool.Handle(protov1.WithPeer(ctx, yes), callArgsJSON("x_tp_exit", `{"code":3}`), nil)
	want := `x_tp_exit was not run: it may delete or overwrite data (its annotations say destructiveHint: true), and plugin "tp" refuses such tools (destructive = "deny", toolgate.hcl:3:1)`
	if err != nil || !res.IsError || text(res) != want {
		t.Errorf("deny: %+v, %v; want %q", res, err, want)
	}
	if len(yes.Requests()) != 0 {
		t.Error("deny asked the user")
	}
	if res, _ := callTool.Handle(ctx, callArgsJSON("x_tp_echo", `{"text":"hi"}`), nil); text(res) != "hi" {
		t.Errorf("deny refused a read-only tool: %q", text(res))
	}
	if st := sup.Status(); st.Restarts != 0 {
		t.Errorf("a denied exit ran: %d restarts", st.Restarts)
	}

	callTool, _, _ = permitHandlers(t, DestructiveAllow)
	yes = elicitAnswer("accept")
	if res, err := callTool.Handle(protov1.WithPeer(ctx, yes), callArgsJSON("x_tp_log", `{"text":"x"}`), nil); err != nil || text(res) != "logged" {
		t.Errorf("allow: %+v, %v", res, err)
	}
	if len(yes.Requests()) != 0 {
		t.Error("allow asked the user")
	}
}

// On MCP 2026-07-28 the ask interrupts the run: the gateway answers with an
// input-required result and the call runs again with the answer, so this
// run must not go on to the tool.
func TestConfirmInterruptedForInputRequired(t *testing.T) {
	callTool, h, sup := permitHandlers(t, DestructiveConfirm)
	rec := &recorder{}
	h.Observer = rec
	interrupting := &plugintest.Peer{Elicit: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, &protov1.PeerError{Method: protov1.MethodElicit, Code: codeRequestInterrupted, Message: "asked with an input-required result"}
	}}
	res, _ := callTool.Handle(protov1.WithPeer(context.Background(), interrupting), callArgsJSON("x_tp_exit", `{"code":3}`), nil)
	if !res.IsError || !strings.Contains(text(res), "waits for the user's confirmation") {
		t.Errorf("interrupted: %q", text(res))
	}
	if got := rec.last(); got.Outcome != OutcomeInputRequired || got.Tool != "x_tp_exit" {
		t.Errorf("recorded %+v; want x_tp_exit with outcome %s", got, OutcomeInputRequired)
	}
	if st := sup.Status(); st.Restarts != 0 {
		t.Errorf("an interrupted exit ran: %d restarts", st.Restarts)
	}
}

// A call made a task is answered before anyone could be asked: refused
// under confirm, run under allow.
func TestConfirmRefusesTasks(t *testing.T) {
	_, h, _ := permitHandlers(t, DestructiveConfirm)
	_, _, err := h.Tasks().StartTask(context.Background(), callArgsJSON("x_tp_exit", `{"code":3}`), nil, &protov1.PeerCapabilities{Elicitation: true, ElicitationForm: true})
	if err == nil || !strings.Contains(err.Error(), "x_tp_exit was not run as a task") || !strings.Contains(err.Error(), "Call it without task mode to be asked") {
		t.Errorf("task of a destructive tool: %v", err)
	}
}

// A client whose answer to the confirmation is no elicitation result is told
// what it sent, in JSON's terms, not Go's; an action outside MCP's three is
// not taken for the user's dismissal.
func TestConfirmAnswersThatAreNoResult(t *testing.T) {
	callTool, _, sup := permitHandlers(t, DestructiveConfirm)
	for answer, want := range map[string]string{
		`"yes"`:                     `x_tp_exit was not run: the client's answer to its confirmation is no elicitation result: its result is a string, where an object with an "action" of accept, decline or cancel was expected`,
		`{"content":{}}`:            `its result has no "action"`,
		`{"action":1}`:              `its "action" is a number`,
		`{"action":"maybe"}`:        `x_tp_exit was not run: the client answered its confirmation with action "maybe", which is none of accept, decline or cancel`,
		`[{"action":"accept"}]`:     `its result is a list`,
		`{"action":{"v":"accept"}}`: `its "action" is an object`,
	} {
		peer := &plugintest.Peer{Elicit: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(answer), nil }}
		res, err := callTool.Handle(protov1.WithPeer(context.Background(), peer), callArgsJSON("x_tp_exit", `{"code":3}`), nil)
		if err != nil || !res.IsError || !strings.Contains(text(res), want) {
			t.Errorf("answer %s: %+v, %v; want an error result containing %q", answer, res, err, want)
		}
	}
	if st := sup.Status(); st.Restarts != 0 || st.State != supervisor.Running {
		t.Errorf("plugin %s after %d restarts: exit ran on an answer that was no yes", st.State, st.Restarts)
	}
}
