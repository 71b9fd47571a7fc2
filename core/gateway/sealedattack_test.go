package gateway

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
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
