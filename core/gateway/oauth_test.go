package gateway

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-hclog"
)

const staticToken = "static-secret"

// oauthGateway serves the test tools over real HTTP, accepting the tokens of
// as and the static token, and logging into the returned buffer.
func oauthGateway(t *testing.T, as *authServer, mod func(*OAuth)) (*httptest.Server, *syncWriter) {
	t.Helper()
	logs := &syncWriter{w: &bytes.Buffer{}}
	o := &OAuth{Issuer: as.URL, Audience: testAudience, Scopes: []string{"mcp"}}
	if mod != nil {
		mod(o)
	}
	f := newFixture(t, func(opts *Options) {
		opts.Tokens = []string{staticToken}
		opts.OAuth = o
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Debug})
	})
	return startHTTP(t, f), logs
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.(*bytes.Buffer).String()
}

type answer struct {
	status int
	header http.Header
	body   string
}

// passed tells a request the guard let through: /mcp answers a ping without
// a session with 400 naming the session header.
func (a answer) passed() bool {
	return a.status == http.StatusBadRequest && strings.Contains(a.body, headerSessionID)
}

func send(t *testing.T, method, url, auth string, mod func(*http.Request)) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(pingBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if mod != nil {
		mod(req)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(body)}
}

func TestOAuthAccessTokens(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	meta := "https://gw.example.com/.well-known/oauth-protected-resource/mcp"
	invalid := func(why string) string {
		return `Bearer error="invalid_token", error_description="` + why + `", resource_metadata="` + meta + `", scope="mcp"`
	}
	with := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := as.claims()
		mod(c)
		return c
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&as.rsaKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	hs256, err := func() (string, error) {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, as.claims())
		tok.Header["kid"] = "rsa-1"
		return tok.SignedString(pubPEM)
	}()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()

	for _, tc := range []struct {
		name   string
		auth   string
		status int    // 0: passes the guard
		authn  string // exact WWW-Authenticate
	}{
		{name: "RS256", auth: "Bearer " + as.good()},
		{name: "ES256", auth: "Bearer " + as.sign(jwt.SigningMethodES256, "ec-1", as.claims())},
		{name: "EdDSA", auth: "Bearer " + as.sign(jwt.SigningMethodEdDSA, "ed-1", as.claims())},
		{name: "scheme in lower case", auth: "bearer " + as.good()},
		{name: "scp as a list", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) {
			delete(c, "scope")
			c["scp"] = []string{"openid", "mcp"}
		}))},
		{name: "scope among others", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { c["scope"] = "openid mcp profile" }))},
		{name: "audience among others", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) {
			c["aud"] = []string{"https://other.example.com", testAudience}
		}))},
		{name: "expired within leeway", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { c["exp"] = now.Add(-10 * time.Second).Unix() }))},
		{name: "static token beside OAuth", auth: "Bearer " + staticToken},

		{name: "no token", status: 401, authn: `Bearer resource_metadata="` + meta + `", scope="mcp"`},
		{name: "basic auth", auth: "Basic c3RhdGljLXNlY3JldA==", status: 401, authn: `Bearer resource_metadata="` + meta + `", scope="mcp"`},
		{name: "not a JWT", auth: "Bearer static-secreT", status: 401, authn: invalid("malformed access token")},
		{name: "wrong issuer", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" })),
			status: 401, authn: invalid("access token from another issuer")},
		{name: "wrong audience", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { c["aud"] = "https://other.example.com" })),
			status: 401, authn: invalid("access token for another audience")},
		{name: "no audience", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { delete(c, "aud") })),
			status: 401, authn: invalid("access token lacks a required claim")},
		{name: "expired", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { c["exp"] = now.Add(-5 * time.Minute).Unix() })),
			status: 401, authn: invalid("access token expired")},
		{name: "no expiry", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { delete(c, "exp") })),
			status: 401, authn: invalid("access token lacks a required claim")},
		{name: "not yet valid", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { c["nbf"] = now.Add(5 * time.Minute).Unix() })),
			status: 401, authn: invalid("access token not valid yet")},
		{name: "alg none", auth: "Bearer " + unsigned(as.claims()), status: 401, authn: invalid("invalid signature or signing algorithm")},
		{name: "HS256 with the public key as secret", auth: "Bearer " + hs256, status: 401, authn: invalid("invalid signature or signing algorithm")},
		{name: "PS256 is not on the allow-list", auth: "Bearer " + as.sign(jwt.SigningMethodPS256, "rsa-1", as.claims()),
			status: 401, authn: invalid("invalid signature or signing algorithm")},
		{name: "ES256 header on the RSA key", auth: "Bearer " + retag(t, as.sign(jwt.SigningMethodES256, "ec-1", as.claims()), "rsa-1"),
			status: 401, authn: invalid("invalid signature or signing algorithm")},
		{name: "signed by another key under a known kid", auth: "Bearer " + retag(t, as.sign(jwt.SigningMethodRS256, "unpublished", as.claims()), "rsa-1"),
			status: 401, authn: invalid("invalid signature or signing algorithm")},
		{name: "missing scope", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { c["scope"] = "openid profile" })),
			status: 403, authn: `Bearer error="insufficient_scope", resource_metadata="` + meta + `", scope="mcp"`},
		{name: "no scope at all", auth: "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { delete(c, "scope") })),
			status: 403, authn: `Bearer error="insufficient_scope", resource_metadata="` + meta + `", scope="mcp"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, http.MethodPost, ts.URL+"/mcp", tc.auth, nil)
			if tc.status == 0 {
				if !a.passed() {
					t.Fatalf("refused: %d %q %s", a.status, a.header.Get("WWW-Authenticate"), a.body)
				}
				return
			}
			if a.status != tc.status {
				t.Fatalf("status %d (%s), want %d", a.status, a.body, tc.status)
			}
			if got := a.header.Get("WWW-Authenticate"); got != tc.authn {
				t.Errorf("WWW-Authenticate =\n %s\nwant\n %s", got, tc.authn)
			}
		})
	}
	// Every kid above was known; the first signature the keys did not verify
	// refetched them once, and the limit kept the others from asking again.
	if n := as.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2: the first fetch and one refetch for a bad signature", n)
	}
}

// retag puts kid into a signed token's header; the signature no longer
// covers the header, which is the point.
func retag(t *testing.T, token, kid string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	raw, err := jwt.NewParser().DecodeSegment(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	var header map[string]any
	if err := json.Unmarshal(raw, &header); err != nil {
		t.Fatal(err)
	}
	header["kid"] = kid
	raw, _ = json.Marshal(header)
	return b64(raw) + "." + parts[1] + "." + parts[2]
}

func TestOAuthFullSession(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	c := newHTTPConn(t, ts.URL+"/mcp", nil)
	c.header.Set("Authorization", "Bearer "+as.sign(jwt.SigningMethodES256, "ec-1", as.claims()))
	c.initialize()
	if status, msgs := c.post(callBody(2, "echo", `{"text":"with a token"}`, "")); status != 200 || !bytes.Contains(msgs[0].Result, []byte("with a token")) {
		t.Fatalf("call: %d %+v", status, msgs)
	}
}

func TestOAuthResourceMetadata(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	// Without a resource, the audience is advertised: clients ask for tokens
	// for the resource, and the gateway wants them for the audience.
	want := `{"resource":"` + testAudience + `","authorization_servers":["` + as.URL + `"],"scopes_supported":["mcp"],"bearer_methods_supported":["header"]}` + "\n"
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		a := send(t, http.MethodGet, ts.URL+path, "", nil)
		if a.status != 200 || a.body != want || a.header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s without a token: %d %s %q\nwant 200 application/json %s", path, a.status, a.header.Get("Content-Type"), a.body, want)
		}
	}
	for name, mod := range map[string]func(*http.Request){
		"foreign Host":   func(r *http.Request) { r.Host = "evil.example" },
		"foreign Origin": func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") },
	} {
		if a := send(t, http.MethodGet, ts.URL+"/.well-known/oauth-protected-resource/mcp", "", mod); a.status != 403 {
			t.Errorf("%s: status %d, want 403", name, a.status)
		}
	}
	// Only the metadata is public: a neighbour path and other methods are not.
	if a := send(t, http.MethodGet, ts.URL+"/.well-known/oauth-protected-resource/other", "", nil); a.status != 401 {
		t.Errorf("neighbour path without a token: status %d, want 401", a.status)
	}
	if a := send(t, http.MethodPost, ts.URL+"/.well-known/oauth-protected-resource/mcp", "", nil); a.status != 401 {
		t.Errorf("POST to the metadata without a token: status %d, want 401", a.status)
	}
	if n := as.jwksHits.Load() + as.metaHits.Load(); n != 0 {
		t.Errorf("serving the metadata asked the authorization server %d times", n)
	}
}

func TestOAuthResourceAndAudienceDisagree(t *testing.T) {
	as := newAuthServer(t)
	ts, logs := oauthGateway(t, as, func(o *OAuth) { o.Audience = "urn:toolgate" })
	self := "http://" + ts.Listener.Addr().String()
	if a := send(t, http.MethodGet, ts.URL+"/.well-known/oauth-protected-resource", "", nil); !strings.Contains(a.body, `"resource":"`+self+`/mcp"`) {
		t.Errorf("metadata: %s, want the resource built from Host", a.body)
	}
	if !strings.Contains(logs.String(), "audience is not a URL") {
		t.Errorf("no warning at start about audience and resource:\n%s", logs)
	}
	_, logs = oauthGateway(t, as, func(o *OAuth) { o.Resource = "https://gw.example.com/other/mcp" })
	if !strings.Contains(logs.String(), "resource and audience differ") {
		t.Errorf("no warning at start about a resource that is not the audience:\n%s", logs)
	}
}

func TestOAuthConfiguredResource(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, func(o *OAuth) {
		o.Resource = "https://gw.example.com/tools/mcp"
		o.Scopes = nil
	})
	want := `{"resource":"https://gw.example.com/tools/mcp","authorization_servers":["` + as.URL + `"],"bearer_methods_supported":["header"]}` + "\n"
	for _, path := range []string{"/.well-known/oauth-protected-resource/tools/mcp", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		if a := send(t, http.MethodGet, ts.URL+path, "", nil); a.status != 200 || a.body != want {
			t.Errorf("GET %s: %d %q, want %s", path, a.status, a.body, want)
		}
	}
	a := send(t, http.MethodPost, ts.URL+"/mcp", "", nil)
	if want := `Bearer resource_metadata="https://gw.example.com/.well-known/oauth-protected-resource/tools/mcp"`; a.status != 401 || a.header.Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d %q, want 401 %q", a.status, a.header.Get("WWW-Authenticate"), want)
	}
	// Without required scopes, a token with none passes.
	c := as.claims()
	delete(c, "scope")
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.sign(jwt.SigningMethodRS256, "rsa-1", c), nil); !a.passed() {
		t.Errorf("token without scopes: %d %s", a.status, a.body)
	}
}
