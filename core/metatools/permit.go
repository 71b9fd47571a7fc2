package metatools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// A client's own permission prompt sees one tool, call_tool, whatever it
// runs: "always allow call_tool" would let an assistant delete as freely as
// it reads. So the gateway asks for itself before it runs a tool that may
// delete or overwrite data: one whose annotations do not say it is
// read-only or not destructive (MCP's default for a tool that says nothing
// of itself). Each plugin's config says whether to ask the calling client's
// user (by elicitation), to run such tools, or to refuse them.

// Destructive is what call_tool does with a plugin's tools that may delete
// or overwrite data.
type Destructive string

const (
	// DestructiveConfirm asks the calling client's user first and refuses
	// when the client cannot be asked.
	DestructiveConfirm Destructive = "confirm"
	// DestructiveAllow runs them without asking.
	DestructiveAllow Destructive = "allow"
	// DestructiveDeny refuses them.
	DestructiveDeny Destructive = "deny"
)

// Permission is a plugin's Destructive setting and where it is configured
// (the plugin block's file:line:col), which refusals name so the operator
// knows what to change.
type Permission struct {
	Destructive Destructive
	Where       string
}

// confirmArgsLimit bounds the arguments a confirmation shows its user.
const confirmArgsLimit = 1000

// permit returns nil when t may run with args, or the result that answers
// the call instead: a refusal, or the user's no. A call made a task is
// answered at once with the task, before anyone could be asked, so it is
// not asked but refused.
func (h *Handlers) permit(ctx context.Context, t *catalog.Tool, args json.RawMessage, asTask bool) (*protov1.Result, Outcome) {
	policy, p := h.permission(t)
	switch policy {
	case "", DestructiveAllow:
		return nil, ""
	case DestructiveDeny:
		return errorResult("%s was not run: it may delete or overwrite data (%s), and plugin %q refuses such tools (destructive = %q%s)",
			t.ID, why(t), t.Plugin, DestructiveDeny, at(p.Where)), OutcomeDenied
	}
	// What the operator would set to run the plugin's tools without asking.
	setting := fmt.Sprintf("destructive = %q in plugin %q", DestructiveAllow, t.Plugin)
	if p.Where != "" {
		setting += " (" + p.Where + ")"
	}
	if asTask {
		return errorResult("%s was not run as a task: it may delete or overwrite data (%s), so plugin %q asks the user first (destructive = %q, the default), "+
			"which a task cannot wait for. Call it without task mode to be asked, or set %s",
			t.ID, why(t), t.Plugin, DestructiveConfirm, setting), OutcomeDenied
	}
	params, err := json.Marshal(map[string]any{
		"message": fmt.Sprintf("Allow %s to run? It may delete or overwrite data (%s).\nArguments: %s",
			t.ID, why(t), oneLine(string(args), confirmArgsLimit)),
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
	})
	if err != nil {
		return errorResult("%s was not run: its confirmation cannot be written: %v", t.ID, err), OutcomeError
	}
	answer, err := protov1.AskPeer(ctx, protov1.PeerFrom(ctx), protov1.MethodElicit, params)
	var pe *protov1.PeerError
	switch {
	case errors.Is(err, protov1.ErrNoPeer):
		return errorResult("%s was not run: it may delete or overwrite data (%s), so plugin %q asks the user first (destructive = %q, the default), "+
			"but this client cannot be asked (it declared no form elicitation). Use a client that supports elicitation, or set %s to run its tools without asking",
			t.ID, why(t), t.Plugin, DestructiveConfirm, setting), OutcomeDenied
	case errors.As(err, &pe) && pe.Code == codeRequestInterrupted:
		// MCP 2026-07-28: the client gets an input-required result and
		// retries with the user's answer; this run ends here.
		return errorResult("%s waits for the user's confirmation", t.ID), OutcomeInputRequired
	case err != nil:
		return errorResult("%s was not run: asking the user to confirm it failed: %v", t.ID, err), OutcomeDenied
	}
	var reply struct {
		Action json.RawMessage `json:"action"`
	}
	var action string
	if json.Unmarshal(answer, &reply) != nil || json.Unmarshal(reply.Action, &action) != nil {
		return errorResult("%s was not run: the client's answer to its confirmation is no elicitation result: %s, where an object with "+
			"an \"action\" of accept, decline or cancel was expected", t.ID, answerShape(answer, reply.Action)), OutcomeDenied
	}
	switch action {
	case "accept":
		return nil, ""
	case "decline":
		return errorResult("%s was not run: the user declined it", t.ID), OutcomeDenied
	case "cancel":
		return errorResult("%s was not run: the user dismissed its confirmation (%q)", t.ID, action), OutcomeDenied
	default:
		return errorResult("%s was not run: the client answered its confirmation with action %q, which is none of accept, decline or cancel",
			t.ID, oneLine(action, confirmArgsLimit)), OutcomeDenied
	}
}

// answerShape says what an elicitation answer that is no result was, in the
// client's JSON terms rather than Go's.
func answerShape(answer, action json.RawMessage) string {
	t := bytes.TrimSpace(answer)
	switch {
	case len(t) == 0 || t[0] != '{':
		return "its result is " + jsonKind(t)
	case len(bytes.TrimSpace(action)) == 0:
		return "its result has no \"action\""
	}
	return "its \"action\" is " + jsonKind(bytes.TrimSpace(action))
}

// jsonKind names the kind of a JSON value.
func jsonKind(v []byte) string {
	switch {
	case len(v) == 0:
		return "empty"
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "a list"
	case v[0] == '"':
		return "a string"
	case v[0] == 't' || v[0] == 'f':
		return "true or false"
	case v[0] == 'n':
		return "null"
	}
	return "a number"
}

// permission is what call_tool does with t when t may delete or overwrite
// data (confirm, allow or deny; an unset policy is confirm), with its
// plugin's setting; "" for any other tool, or when no policy is set.
// describe_tool shows it, so an assistant knows before it calls.
func (h *Handlers) permission(t *catalog.Tool) (Destructive, Permission) {
	if !t.Def.Annotations.IsDestructive() || h.Permissions == nil {
		return "", Permission{}
	}
	p := h.Permissions(t.Plugin)
	if p.Destructive == DestructiveAllow || p.Destructive == DestructiveDeny {
		return p.Destructive, p
	}
	return DestructiveConfirm, p
}

// mayRefuse reports whether permit may refuse t or ask about it: calls
// that cannot be refused skip setting up the wait for an answer.
func (h *Handlers) mayRefuse(t *catalog.Tool) bool {
	policy, _ := h.permission(t)
	return policy != "" && policy != DestructiveAllow
}

// codeRequestInterrupted is the code a 2026-07-28 peer's request fails with
// when the client is to be asked with an input-required result.
const codeRequestInterrupted = -32800

// why says what makes t count as a tool that may delete or overwrite data.
func why(t *catalog.Tool) string {
	if t.Def.Annotations.Destructive != nil {
		return "its annotations say destructiveHint: true"
	}
	return "its annotations do not say it is read-only or not destructive"
}

func at(where string) string {
	if where == "" {
		return ""
	}
	return ", " + where
}
