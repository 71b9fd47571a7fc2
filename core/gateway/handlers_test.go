package gateway

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// Extra handlers are served on the gateway's own listener and pass the same
// checks as /mcp before they run.
func TestExtraHandlersSitBehindTheAccessChecks(t *testing.T) {
	ran := 0
	f := newFixture(t, func(o *Options) {
		o.Tokens = []string{"s3cret"}
		o.Handlers = map[string]http.Handler{"GET /metrics": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			ran++
			_, _ = io.WriteString(w, "up 1\n")
		})}
	})
	addr, cancel, done := serve(t, f, "127.0.0.1:0")
	url := "http://" + addr.String()

	for _, tc := range []struct {
		name, method, path, host, origin, auth string
		wantStatus                             int
		wantBody                               string
	}{
		{name: "token", method: "GET", path: "/metrics", auth: "Bearer s3cret", wantStatus: 200, wantBody: "up 1\n"},
		{name: "no token", method: "GET", path: "/metrics", wantStatus: 401},
		{name: "wrong token", method: "GET", path: "/metrics", auth: "Bearer s3cre", wantStatus: 401},
		{name: "rebinding host", method: "GET", path: "/metrics", host: "evil.example", auth: "Bearer s3cret", wantStatus: 403},
		{name: "foreign origin", method: "GET", path: "/metrics", origin: "https://evil.example", auth: "Bearer s3cret", wantStatus: 403},
		{name: "method the pattern excludes", method: "POST", path: "/metrics", auth: "Bearer s3cret", wantStatus: 405},
		{name: "no such path", method: "GET", path: "/other", auth: "Bearer s3cret", wantStatus: 404},
	} {
		req, err := http.NewRequest(tc.method, url+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.wantStatus || tc.wantBody != "" && string(body) != tc.wantBody {
			t.Errorf("%s: %d %q, want %d %q", tc.name, resp.StatusCode, body, tc.wantStatus, tc.wantBody)
		}
	}
	if ran != 1 {
		t.Errorf("handler ran %d times, want only for the authorised request", ran)
	}
	// /mcp is still the gateway's.
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(pingBody))
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 { // no session: initialize first
		t.Errorf("/mcp answered %d", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestNewRejectsBadHandlers(t *testing.T) {
	ok := http.NotFoundHandler()
	for name, handlers := range map[string]map[string]http.Handler{
		"shadows /mcp":    {"/mcp": ok},
		"nil handler":     {"/metrics": nil},
		"invalid pattern": {"metrics": ok},
	} {
		_, err := buildFixture(func(o *Options) { o.Handlers = handlers })
		if _, isOpt := err.(*OptionError); !isOpt {
			t.Errorf("%s: New gave %T %v, want *OptionError", name, err, err)
		}
	}
}
