package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Attacks on sealed session ids that take more than flipping a byte.

const base64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// respelled is id with the unused low bits of its last base64 character
// set, a spelling that lenient decoders read as the same bytes; "" when the
// encoding has no unused bits.
func respelled(id string) string {
	spare := map[int]int{2: 4, 3: 2}[len(strings.TrimPrefix(id, sealedPrefix))%4]
	if spare == 0 {
		return ""
	}
	last := strings.IndexByte(base64URL, id[len(id)-1])
	return id[:len(id)-1] + string(base64URL[last|(1<<spare-1)])
}

// TestSealedSessionIDHasOneSpelling: a session id spelt another way is
// refused, or a DELETE of one spelling would leave the other served by the
// very replica that deleted the session.
func TestSealedSessionIDHasOneSpelling(t *testing.T) {
	a := replica(t, [][]byte{testKey(1)}, nil)
	var sid, other string
	// The id's length follows the client's name; some lengths leave unused
	// bits in the last character.
	for n := 1; other == "" && n <= 3; n++ {
		sid = openSession(t, a, "token-a", fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":%q,"version":"1"}}}`, strings.Repeat("n", n)))
		if v := respelled(sid); v != sid {
			other = v
		}
	}
	if other == "" {
		t.Fatal("no session id with unused bits in its last character")
	}
	owner := onSession(t, a, "token-a", sid)
	whoami(t, owner, http.StatusOK)
	whoami(t, onSession(t, a, "token-a", other), http.StatusNotFound)

	resp := owner.do(owner.request(http.MethodDelete, ""))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d, want 204", resp.StatusCode)
	}
	whoami(t, onSession(t, a, "token-a", other), http.StatusNotFound)
}

// TestStaticTokenPrincipalFollowsTheToken: a static token's principal is the
// token, not only its place in the list. Revoking "token-a" moves "token-b"
// to the first place; on a replica so configured (or restarted so), its
// holder must find none of token-a's sessions, requestStates or tasks.
func TestStaticTokenPrincipalFollowsTheToken(t *testing.T) {
	keys := [][]byte{testKey(1)}
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	withTokens := func(tokens ...string) func(*Options) {
		return func(o *Options) {
			o.Tokens = tokens
			o.InputStateKey = keys[0]
			o.Tasks = &Tasks{Tool: "echo", Runner: plugins}
		}
	}
	both := replica(t, keys, withTokens("token-a", "token-b"))
	revoked := replica(t, keys, withTokens("token-b"))
	reordered := replica(t, keys, withTokens("token-b", "token-a"))

	sid := openSession(t, both, "token-a", richInitialize)
	ir := askFirstRound(t, onSession(t, both, "token-a", ""))
	retry := fmt.Sprintf(`,"requestState":%q,"inputResponses":{%q:{"role":"assistant","content":{"type":"text","text":"s"},"model":"m"}}`,
		ir.RequestState, onlyKey(ir.InputRequests))
	msgs := extRequest(onSession(t, both, "token-a", ""), 1, "tools/call", `"name":"echo","arguments":{"text":"x"}`, true)
	var created struct {
		TaskID string `json:"taskId"`
	}
	if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &created) != nil || created.TaskID == "" {
		t.Fatalf("task of token-a: %s", replyOf(msgs))
	}
	taskParams := fmt.Sprintf(`"taskId":%q`, created.TaskID)

	for name, url := range map[string]string{"token-a revoked": revoked, "tokens reordered": reordered} {
		t.Run(name+", session", func(t *testing.T) {
			whoami(t, onSession(t, url, "token-b", sid), http.StatusNotFound)
		})
		t.Run(name+", requestState", func(t *testing.T) {
			status, msgs := modernCall(onSession(t, url, "token-b", ""), 2, "ask", twoAsks, retry)
			if status != http.StatusBadRequest || len(msgs) != 1 || msgs[0].Error == nil || !strings.Contains(msgs[0].Error.Message, "another principal") {
				t.Errorf("token-a's requestState sent with token-b: %d %s; want 400 saying another principal", status, replyOf(msgs))
			}
		})
		t.Run(name+", task", func(t *testing.T) {
			if got := replyOf(extRequest(onSession(t, url, "token-b", ""), 3, "tasks/get", taskParams, true)); !strings.Contains(got, "unknown task") {
				t.Errorf("token-a's task asked for with token-b: %s; want unknown task", got)
			}
		})
	}
	// token-a itself is served by another replica with the same tokens.
	same := replica(t, keys, withTokens("token-a", "token-b"))
	whoami(t, onSession(t, same, "token-a", sid), http.StatusOK)
	if got := replyOf(extRequest(onSession(t, same, "token-a", ""), 4, "tasks/get", taskParams, true)); !strings.Contains(got, `"status":"working"`) {
		t.Errorf("token-a's task on another replica: %s", got)
	}
	if status, msgs := modernCall(onSession(t, same, "token-a", ""), 5, "ask", twoAsks, retry); status != http.StatusOK || len(msgs) != 1 || msgs[0].Error != nil {
		t.Errorf("token-a's requestState on another replica: %d %s", status, replyOf(msgs))
	}
}

// callRefusal is the status and error message a call on c gets.
func callRefusal(t *testing.T, c *httpConn) (int, string) {
	t.Helper()
	status, msgs := c.post(callBody(1, "whoami", "", ""))
	if len(msgs) != 1 || msgs[0].Error == nil {
		return status, fmt.Sprintf("%+v", msgs)
	}
	return status, msgs[0].Error.Message
}

// TestSealedSessionRefusalsNameTheirCause: the owner of a session that can
// no longer be served is told why (a replica restarted with another key, an
// expired or a deleted session) and can open a new one; anyone else learns
// nothing about the session.
func TestSealedSessionRefusalsNameTheirCause(t *testing.T) {
	short := func(o *Options) { o.SessionMaxAge = 2 * time.Second }
	a := replica(t, [][]byte{testKey(1)}, short)
	restarted := replica(t, [][]byte{testKey(2)}, short)
	sid := openSession(t, a, "token-a", richInitialize)
	deleted := openSession(t, a, "token-a", richInitialize)
	c := onSession(t, a, "token-a", deleted)
	resp := c.do(c.request(http.MethodDelete, ""))
	resp.Body.Close()

	unknown := "session not found: it ended, expired or never existed; initialize a new one"
	check := func(name string, c *httpConn, want string) {
		t.Helper()
		if status, msg := callRefusal(t, c); status != http.StatusNotFound || !strings.Contains(msg, want) {
			t.Errorf("%s: %d %q; want 404 with %q", name, status, msg, want)
		}
	}
	check("another key", onSession(t, restarted, "token-a", sid), "not sealed with any session key this gateway holds")
	check("deleted", onSession(t, a, "token-a", deleted), "was deleted")
	check("deleted, another principal", onSession(t, a, "token-b", deleted), unknown)
	check("another principal", onSession(t, a, "token-b", sid), unknown)
	openSession(t, restarted, "token-a", richInitialize)

	time.Sleep(2100 * time.Millisecond)
	check("expired", onSession(t, a, "token-a", sid), "session expired at ")
	check("expired, on a replica that never saw it", onSession(t, replica(t, [][]byte{testKey(1)}, short), "token-a", sid), "session expired at ")
	check("expired, another principal", onSession(t, a, "token-b", sid), unknown)
}

// TestShorterSessionMaxAgeEndsOlderSessions: lowering session_max_age (say
// after a leak) also shortens the sessions sealed before, on the replicas
// that run with the lower value.
func TestShorterSessionMaxAgeEndsOlderSessions(t *testing.T) {
	keys := [][]byte{testKey(1)}
	long := replica(t, keys, nil)
	short := replica(t, keys, func(o *Options) { o.SessionMaxAge = 2 * time.Second })
	sid := openSession(t, long, "token-a", richInitialize)
	whoami(t, onSession(t, short, "token-a", sid), http.StatusOK)
	time.Sleep(2100 * time.Millisecond)
	for name, url := range map[string]string{"a replica holding it": short,
		"a replica that never saw it": replica(t, keys, func(o *Options) { o.SessionMaxAge = 2 * time.Second })} {
		if status, msg := callRefusal(t, onSession(t, url, "token-a", sid)); status != http.StatusNotFound || !strings.Contains(msg, "session expired at") {
			t.Errorf("%s: %d %q; want 404 saying the session expired", name, status, msg)
		}
	}
	whoami(t, onSession(t, long, "token-a", sid), http.StatusOK)
}

// TestUnknownTaskAnswerStaysSmall: a task id is echoed in the refusal, cut
// short: a megabyte id escaped in full came back several times larger.
func TestUnknownTaskAnswerStaysSmall(t *testing.T) {
	plugins := &memTasks{tasks: map[string]protov1.Task{}}
	url := replica(t, [][]byte{testKey(1)}, func(o *Options) { o.Tasks = &Tasks{Tool: "echo", Runner: plugins} })
	huge := sealedPrefix + strings.Repeat("\u0085", 1<<19)
	legacy := onSession(t, url, "token-a", openSession(t, url, "token-a", richInitialize))
	_, legacyMsgs := legacy.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":%q}}`, huge))
	for name, msgs := range map[string][]message{
		"2025-11-25": legacyMsgs,
		"2026-07-28": extRequest(onSession(t, url, "token-a", ""), 2, "tasks/get", fmt.Sprintf(`"taskId":%q`, huge), true),
	} {
		got := replyOf(msgs)
		if !strings.Contains(got, "unknown task") || len(got) > 1024 {
			t.Errorf("%s: a %d-byte task id answered with %d bytes: %.120s…; want a short unknown task", name, len(huge), len(got), got)
		}
	}
}
