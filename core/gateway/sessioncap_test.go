package gateway

import (
	"net/http"
	"strings"
	"testing"
)

const initializeBody = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// requirePrincipalCap fails unless status and msgs are the refusal of a
// principal at its own session cap, for request id 7 or 1.
func requirePrincipalCap(t *testing.T, what string, status int, msgs []message) {
	t.Helper()
	if status != http.StatusTooManyRequests || len(msgs) != 1 || msgs[0].Error == nil ||
		!strings.Contains(msgs[0].Error.Message, "too many sessions of yours") ||
		!strings.Contains(msgs[0].Error.Message, "(listen.max_sessions_per_principal)") {
		t.Fatalf("%s: %d %+v, want 429 with a JSON-RPC error naming listen.max_sessions_per_principal", what, status, msgs)
	}
}

// TestHTTPSessionCapPerPrincipal: a principal at its share is refused more
// sessions while another principal still gets them, and ending one of its
// sessions gives its place back.
func TestHTTPSessionCapPerPrincipal(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"token-a", "token-b"}
		o.MaxSessions = 10
		o.MaxSessionsPerPrincipal = 2
	})
	url := startHTTP(t, f).URL + "/mcp"
	as := func(token string) *httpConn {
		c := newHTTPConn(t, url, nil)
		c.header.Set("Authorization", "Bearer "+token)
		return c
	}
	first := as("token-a")
	first.initialize()
	as("token-a").initialize()

	over := as("token-a")
	status, msgs := over.post(initializeBody)
	requirePrincipalCap(t, "a third session of token-a", status, msgs)
	if string(msgs[0].ID) != "7" {
		t.Errorf("refusal answers id %s, want 7", msgs[0].ID)
	}
	// Another principal is not locked out.
	as("token-b").initialize()
	as("token-b").initialize()

	resp := first.do(first.request(http.MethodDelete, ""))
	resp.Body.Close()
	over.initialize()
}

// TestSealedSessionsCappedPerPrincipalPerReplica: a replica rebuilding
// sealed sessions counts them against their principal's share there.
func TestSealedSessionsCappedPerPrincipalPerReplica(t *testing.T) {
	keys := [][]byte{testKey(1)}
	a := replica(t, keys, nil)
	b := replica(t, keys, func(o *Options) { o.MaxSessionsPerPrincipal = 1 })
	first, second := openSession(t, a, "token-a", richInitialize), openSession(t, a, "token-a", richInitialize)
	whoami(t, onSession(t, b, "token-a", first), http.StatusOK)
	status, msgs := onSession(t, b, "token-a", second).post(callBody(1, "whoami", "", ""))
	requirePrincipalCap(t, "a second sealed session of token-a rebuilt", status, msgs)
	// The replica that opened both still serves both, and the other
	// principal still gets a session on the capped replica.
	whoami(t, onSession(t, a, "token-a", second), http.StatusOK)
	openSession(t, b, "token-b", richInitialize)
}

// TestDefaultSharesPerPrincipal: only one principal can connect without
// authentication or with a single token, so its caps on sessions and tasks
// are the whole gateway's, as before there were caps per principal; with
// several principals each may hold a tenth.
func TestDefaultSharesPerPrincipal(t *testing.T) {
	for _, tc := range []struct {
		name            string
		opts            Options
		sessions, tasks int
	}{
		{"no authentication", Options{}, DefaultMaxSessions, maxIndexedTasks},
		{"one token", Options{Tokens: []string{"t"}}, DefaultMaxSessions, maxIndexedTasks},
		{"two tokens", Options{Tokens: []string{"t", "u"}}, DefaultMaxSessions / 10, maxIndexedTasks / 10},
		{"OAuth", Options{OAuth: &OAuth{}}, DefaultMaxSessions / 10, maxIndexedTasks / 10},
		{"OAuth, small gateway", Options{OAuth: &OAuth{}, MaxSessions: 5}, 1, maxIndexedTasks / 10},
		{"set", Options{Tokens: []string{"t", "u"}, MaxSessions: 100, MaxSessionsPerPrincipal: 70}, 70, maxIndexedTasks / 10},
	} {
		s := &Server{opts: tc.opts}
		if got := s.maxSessionsPerPrincipal(); got != tc.sessions {
			t.Errorf("%s: %d sessions per principal, want %d", tc.name, got, tc.sessions)
		}
		if got := s.taskShare(); got != tc.tasks {
			t.Errorf("%s: %d tasks per principal, want %d", tc.name, got, tc.tasks)
		}
	}
}

func TestSessionsPerPrincipalOption(t *testing.T) {
	for name, mod := range map[string]func(*Options){
		"negative":              func(o *Options) { o.MaxSessionsPerPrincipal = -1 },
		"more than the gateway": func(o *Options) { o.MaxSessions, o.MaxSessionsPerPrincipal = 5, 6 },
		"more than the default": func(o *Options) { o.MaxSessionsPerPrincipal = DefaultMaxSessions + 1 },
	} {
		_, err := buildFixture(mod)
		if oe, ok := err.(*OptionError); !ok || oe.Field != "MaxSessionsPerPrincipal" {
			t.Errorf("%s: New = %v, want an *OptionError of MaxSessionsPerPrincipal", name, err)
		}
	}
}
