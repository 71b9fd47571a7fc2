package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionsCappedPerPrincipal connects the official Go SDK's client on
// 2025-11-25 sessions with two tokens to a gateway that lets a principal
// hold one session: a second session of the same token is refused with
// 429 (the SDK shows the status of a 429, not its JSON-RPC error, which
// the gateway's unit tests read) and the gateway logs which limit, the
// other token still gets a session, and closing the first session gives
// its place back.
func TestSessionsCappedPerPrincipal(t *testing.T) {
	g := startGateway(t, setup{
		Plugins: pathPlugin("hello", bins.hello, true),
		Listen:  "tokens = [\"alice-secret\", \"bob-secret\"]\n  max_sessions_per_principal = 1",
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	connect := func(token string) (*gomcp.ClientSession, error) {
		tr := &gomcp.StreamableClientTransport{Endpoint: g.URL, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: withHeaders{"Authorization": "Bearer " + token}}}
		c := gomcp.NewClient(&gomcp.Implementation{Name: "toolgate-e2e-cap", Version: "1.0.0"}, nil)
		return c.Connect(ctx, tr, &gomcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	}
	first, err := connect("alice-secret")
	if err != nil {
		t.Fatalf("alice's first session: %v", err)
	}
	if _, err := first.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list on alice's session: %v", err)
	}

	second, err := connect("alice-secret")
	if err == nil {
		_ = second.Close()
		t.Fatal("alice's second session was opened; want it refused at max_sessions_per_principal = 1")
	}
	if !strings.Contains(err.Error(), http.StatusText(http.StatusTooManyRequests)) {
		t.Errorf("alice's second session refused with %q; want %d %s", err, http.StatusTooManyRequests, http.StatusText(http.StatusTooManyRequests))
	}
	if !g.log.contains("initialize refused: per-principal session limit reached: limit=1 issuer=token subject=0") {
		t.Errorf("the gateway did not log which limit refused alice's session:\n%s", g.log.tail(20))
	}

	bob, err := connect("bob-secret")
	if err != nil {
		t.Fatalf("bob locked out while alice holds her one session: %v", err)
	}
	defer bob.Close()

	// Closing a session (DELETE) gives its place back.
	if err := first.Close(); err != nil {
		t.Fatalf("close alice's first session: %v", err)
	}
	again, err := connect("alice-secret")
	if err != nil {
		t.Fatalf("alice's session after closing her first: %v", err)
	}
	defer again.Close()
	if _, err := again.ListTools(ctx, nil); err != nil {
		t.Errorf("tools/list on alice's new session: %v", err)
	}
	g.requireAlive()
}
