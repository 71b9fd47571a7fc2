package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// TestSpentStates: an id is spent once; a principal holds a tenth of the
// record and the record holds its limit, past which a state is refused
// rather than an unexpired id forgotten; an expired id frees its place.
func TestSpentStates(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	exp := now.Add(DefaultInputStateTTL).Unix()
	alice, bob := Principal{Subject: "alice"}, Principal{Subject: "bob"}
	id := func(s string) stateID { var id stateID; copy(id[:], s); return id }
	ss := newSpentStates(20, 2)

	if err := ss.spend(id("a"), exp, alice, now); err != nil {
		t.Fatalf("first spend: %v", err)
	}
	if err := ss.spend(id("a"), exp, alice, now); !errors.Is(err, errStateSpent) {
		t.Fatalf("second spend of the same id = %v, want errStateSpent", err)
	}
	if err := ss.spend(id("a"), exp, bob, now); !errors.Is(err, errStateSpent) {
		t.Fatalf("the same id by another principal = %v, want errStateSpent", err)
	}
	if err := ss.spend(id("b"), exp+5, alice, now); err != nil {
		t.Fatalf("alice's second: %v", err)
	}
	var full *spentFullError
	if err := ss.spend(id("c"), exp, alice, now); !errors.As(err, &full) || !full.Principal || full.Held != 2 || full.Until.Unix() != exp+1 {
		t.Fatalf("alice's third = %#v, want her share full until %d", err, exp+1)
	}
	for i := range 9 {
		for j := range 2 {
			if err := ss.spend(id(fmt.Sprintf("p%d-%d", i, j)), exp+int64(i), Principal{Subject: fmt.Sprint("p", i)}, now); err != nil {
				t.Fatalf("principal %d, state %d: %v", i, j, err)
			}
		}
	}
	if err := ss.spend(id("b2"), exp, bob, now); !errors.As(err, &full) || full.Principal || full.Held != 20 || full.Until.Unix() != exp+1 {
		t.Fatalf("spend into a full record = %#v, want the record full until %d", err, exp+1)
	}
	if err := ss.spend(id("a"), exp, alice, now); !errors.Is(err, errStateSpent) {
		t.Fatalf("a spent id in a full record = %v, want errStateSpent", err)
	}

	// At exp+1 the states that expired at exp are gone (openState refuses
	// them): alice's "a" and p0's two; "b" (exp+5) stays.
	later := time.Unix(exp+1, 0)
	if err := ss.spend(id("b2"), exp+600, bob, later); err != nil {
		t.Fatalf("spend once some expired: %v", err)
	}
	if n := ss.len(); n != 18 {
		t.Fatalf("%d ids held after expiry, want 18", n)
	}
	if err := ss.spend(id("b"), exp+5, alice, later); !errors.Is(err, errStateSpent) {
		t.Fatalf("an unexpired id after others expired = %v, want errStateSpent", err)
	}
}

// confirmAsk asks the client to confirm a removal, as call_tool does.
const confirmAsk = `{"message":"Remove it?","requestedSchema":{"type":"object","properties":{}}}`

// TestAcceptedConfirmationRunsOnce: a requestState whose answers accept an
// elicitation runs its call once; sent again, it is refused with a reason
// and the backend does not run. A declined one, and a state whose answers
// accept nothing, may be sent again.
func TestAcceptedConfirmationRunsOnce(t *testing.T) {
	var removed atomic.Int32
	f := newFixture(t, func(o *Options) {
		o.Tools = append(o.Tools, Tool{Name: "remove", Description: "Removes, once the client confirms.",
			Handle: func(ctx context.Context, _ json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
				answer, err := protov1.PeerFrom(ctx).Request(ctx, protov1.MethodElicit, json.RawMessage(confirmAsk))
				if err != nil {
					return nil, err
				}
				var r struct{ Action string }
				if err := json.Unmarshal(answer, &r); err != nil || r.Action != "accept" {
					return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: "kept"}}}, nil
				}
				removed.Add(1)
				return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: "removed"}}}, nil
			}})
	})
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	firstRound := func() inputRequired {
		_, msgs := modernCall(c, 1, "remove", `{}`, "")
		var ir inputRequired
		if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &ir) != nil || ir.ResultType != "input_required" {
			t.Fatalf("first round: %+v", msgs)
		}
		return ir
	}
	retry := func(ir inputRequired, action string) []message {
		_, msgs := modernCall(c, 2, "remove", `{}`, fmt.Sprintf(`,"requestState":%q,"inputResponses":{%q:{"action":%q}}`,
			ir.RequestState, onlyKey(ir.InputRequests), action))
		if len(msgs) != 1 {
			t.Fatalf("retry: %+v", msgs)
		}
		return msgs
	}

	ir := firstRound()
	for range 2 {
		if msgs := retry(ir, "decline"); msgs[0].Error != nil || !strings.Contains(string(msgs[0].Result), "kept") {
			t.Fatalf("declined: %+v", msgs)
		}
	}
	if msgs := retry(ir, "accept"); msgs[0].Error != nil || !strings.Contains(string(msgs[0].Result), "removed") {
		t.Fatalf("accepted: %+v", msgs)
	}
	msgs := retry(ir, "accept")
	if e := msgs[0].Error; e == nil || e.Code != -32602 || !strings.Contains(e.Message, "its confirmation was already used to run this call") ||
		!strings.Contains(e.Message, "call the tool again without requestState") {
		t.Fatalf("the accepted state sent again: %s %+v, want -32602 saying it was used", msgs[0].Result, e)
	}
	if n := removed.Load(); n != 1 {
		t.Fatalf("the backend removed %d times, want once", n)
	}

	// A fresh call is asked again, and runs again once accepted.
	if msgs := retry(firstRound(), "accept"); msgs[0].Error != nil || !strings.Contains(string(msgs[0].Result), "removed") || removed.Load() != 2 {
		t.Fatalf("a new confirmation: %+v (removed %d times)", msgs, removed.Load())
	}

	// Answers that accept nothing hold no consent to spend.
	sampling := askFirstRound(t, c)
	again := fmt.Sprintf(`,"requestState":%q,"inputResponses":{%q:{"role":"assistant","content":{"type":"text","text":"s"},"model":"m"}}`,
		sampling.RequestState, onlyKey(sampling.InputRequests))
	for i := range 2 {
		if _, msgs := modernCall(c, 3, "ask", twoAsks, again); len(msgs) != 1 || msgs[0].Error != nil {
			t.Fatalf("sampling answer, retry %d: %+v", i, msgs)
		}
	}
}

// TestSpentStatesFullAnswersTheCall: with no room left to remember a
// state, the call is answered, not run, and says why.
func TestSpentStatesFullAnswersTheCall(t *testing.T) {
	f := newFixture(t, nil)
	f.srv.spent = newSpentStates(1, 1)
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	elicit := `{"asks":[{"method":"elicitation/create","params":` + confirmAsk + `}]}`
	round := func(id int) (string, []message) {
		status, msgs := modernCall(c, id, "ask", elicit, "")
		var ir inputRequired
		if status != http.StatusOK || len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &ir) != nil || ir.ResultType != "input_required" {
			t.Fatalf("first round: %d %+v", status, msgs)
		}
		_, msgs = modernCall(c, id+1, "ask", elicit, fmt.Sprintf(`,"requestState":%q,"inputResponses":{%q:{"action":"accept"}}`,
			ir.RequestState, onlyKey(ir.InputRequests)))
		if len(msgs) != 1 || msgs[0].Error != nil {
			t.Fatalf("retry: %+v", msgs)
		}
		return string(msgs[0].Result), msgs
	}
	if res, _ := round(1); !strings.Contains(res, `"answers":[{"action":"accept"}]`) {
		t.Fatalf("first confirmation: %s", res)
	}
	res, _ := round(3)
	if !strings.Contains(res, `"isError":true`) || !strings.Contains(res, `\"ask\" was not run: your principal has 1 confirmations used`) ||
		!strings.Contains(res, "Call it again later") {
		t.Fatalf("confirmation with the record full: %s", res)
	}
}
