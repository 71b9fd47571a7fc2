package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-hclog"
)

func TestOAuthClaimStrictness(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	relaxed, _ := oauthGateway(t, as, func(o *OAuth) { o.AllowAnyTyp = true })
	with := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := as.claims()
		mod(c)
		return c
	}
	now := time.Now()
	for _, tc := range []struct {
		name, token, reason string
		relaxedPasses       bool
	}{
		{name: "iat ten years ahead", token: as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) {
			c["iat"] = now.AddDate(10, 0, 0).Unix()
			c["exp"] = now.AddDate(10, 0, 0).Add(time.Hour).Unix()
		})), reason: "access token issued in the future"},
		{name: "lifetime of a year", token: as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) {
			c["exp"] = now.AddDate(1, 0, 0).Unix()
		})), reason: "access token lifetime exceeds the maximum of 24h0m0s"},
		{name: "lifetime of a year without iat", token: as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) {
			delete(c, "iat")
			c["exp"] = now.AddDate(1, 0, 0).Unix()
		})), reason: "access token lifetime exceeds the maximum of 24h0m0s"},
		{name: "no sub", token: as.sign(jwt.SigningMethodRS256, "rsa-1", with(func(c jwt.MapClaims) { delete(c, "sub") })),
			reason: "access token lacks a sub claim"},
		{name: "typ JWT (an ID token's)", token: as.signTyp(jwt.SigningMethodRS256, "rsa-1", "JWT", as.claims()),
			reason: `access token typ is \"JWT\", not at+jwt (RFC 9068)`, relaxedPasses: true},
		{name: "no typ", token: as.signTyp(jwt.SigningMethodRS256, "rsa-1", "", as.claims()),
			reason: `access token typ is \"\", not at+jwt (RFC 9068)`, relaxedPasses: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+tc.token, nil)
			if want := `error_description="` + tc.reason + `"`; a.status != 401 || !strings.Contains(a.header.Get("WWW-Authenticate"), want) {
				t.Errorf("status %d %q, want 401 with %s", a.status, a.header.Get("WWW-Authenticate"), want)
			}
			if a := send(t, http.MethodPost, relaxed.URL+"/mcp", "Bearer "+tc.token, nil); a.passed() != tc.relaxedPasses {
				t.Errorf("with AllowAnyTyp: %d %q, want passed=%v", a.status, a.header.Get("WWW-Authenticate"), tc.relaxedPasses)
			}
		})
	}
	// application/at+jwt is the media type form of the same.
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.signTyp(jwt.SigningMethodRS256, "rsa-1", "application/at+jwt", as.claims()), nil); !a.passed() {
		t.Errorf("typ application/at+jwt: %d %q", a.status, a.header.Get("WWW-Authenticate"))
	}
}

func TestOAuthOnlySignatureKeysVerify(t *testing.T) {
	as := newAuthServer(t)
	as.set(func(as *authServer) { as.rsaUse = "enc" })
	ts, _ := oauthGateway(t, as, nil)
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil); a.status != 401 {
		t.Errorf("token signed by a key published for encryption: %d, want 401", a.status)
	}
	// Without a kid, the token is tried against the key set, and still only
	// against its signing keys.
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+withoutKid(t, as, jwt.SigningMethodRS256, "rsa-1"), nil); a.status != 401 {
		t.Errorf("token without a kid signed by a key published for encryption: %d, want 401", a.status)
	}
	// A key without "use" is a signing key.
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.sign(jwt.SigningMethodES256, "ec-1", as.claims()), nil); !a.passed() {
		t.Errorf("token signed by a sig key: %d %s", a.status, a.body)
	}
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+withoutKid(t, as, jwt.SigningMethodES256, "ec-1"), nil); !a.passed() {
		t.Errorf("token without a kid signed by a sig key: %d %s", a.status, a.body)
	}
}

// withoutKid is a good token signed by the key published as kid, with no
// kid in its header.
func withoutKid(t *testing.T, as *authServer, method jwt.SigningMethod, kid string) string {
	t.Helper()
	key := map[string]any{"rsa-1": as.rsaKey, "ec-1": as.ecKey}[kid]
	tok := jwt.NewWithClaims(method, as.claims())
	tok.Header["typ"] = "at+jwt"
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOAuthRefusalsAreLoggedAtInfoRateLimited(t *testing.T) {
	as := newAuthServer(t)
	ts, logs := oauthGateway(t, as, nil)
	bad := as.sign(jwt.SigningMethodRS256, "rsa-1", jwt.MapClaims{"iss": "https://elsewhere", "sub": "x"})
	for range 40 {
		if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+bad, nil); a.status != 401 {
			t.Fatalf("status %d, want 401", a.status)
		}
	}
	lines := strings.Count(logs.String(), "[INFO]  oauth: access token refused")
	if lines < 1 || lines > refusalLogBurst+2 {
		t.Errorf("%d info lines for 40 refused tokens, want between 1 and %d:\n%s", lines, refusalLogBurst+2, logs)
	}
}

// TestOAuthRefusalLogSaysWhatFailed: an operator reads in the log line of
// a refused token which issuer it was checked against, and what a token the
// issuer signed carried against the configuration and the clock; never the
// token, and never more than a bounded line for what a forger wrote.
func TestOAuthRefusalLogSaysWhatFailed(t *testing.T) {
	as := newAuthServer(t)
	ts, logs := oauthGateway(t, as, nil)
	otherAud := as.claims()
	otherAud["aud"] = []string{"https://gw.example.com/mcp/", "client-7"}
	expired := as.claims()
	expired["iat"], expired["exp"] = time.Now().Add(-time.Hour).Unix(), time.Now().Add(-10*time.Minute).Unix()
	header := b64([]byte(`{"alg":"RS256","typ":"at+jwt","kid":"` + strings.Repeat("K", 200_000) + `"}`))
	forged := header + "." + b64([]byte(`{"sub":"x"}`)) + ".c2ln"
	tokens := []string{as.sign(jwt.SigningMethodRS256, "rsa-1", otherAud), as.sign(jwt.SigningMethodRS256, "rsa-1", expired), forged}
	for _, tok := range tokens {
		if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+tok, nil); a.status != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401: %s", a.status, a.body)
		}
	}
	out := logs.String()
	for _, want := range []string{
		`reason="access token for another audience"`, `issuer=` + as.URL, `audience=` + testAudience,
		`token_aud="[\"https://gw.example.com/mcp/\",\"client-7\"]"`,
		`token_sub=user-1 `,
		`reason="access token expired"`, `token_exp=` + time.Unix(expired["exp"].(int64), 0).UTC().Format(time.RFC3339), `now=`,
		`reason="unknown signing key"`, `bytes in all`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%.3000s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 1000 {
			t.Errorf("log line of %d bytes: %.300s…", len(line), line)
		}
	}
	for _, tok := range tokens {
		if sig := tok[strings.LastIndexByte(tok, '.')+1:]; strings.Contains(out, sig) {
			t.Errorf("log shows a token's signature:\n%.3000s", out)
		}
	}
}

// keySourceFor is a key source for the keys of as, at jwksURL or discovered.
func keySourceFor(t *testing.T, as *authServer, jwksURL string) *keySource {
	t.Helper()
	k := newKeySource(as.URL, jwksURL, 2*time.Second, hclogNull())
	t.Cleanup(k.close)
	return k
}

func TestOAuthKeyFetchesStayOnHTTPSOrLoopback(t *testing.T) {
	as := newAuthServer(t)
	for name, set := range map[string]func(as *authServer){
		"discovered jwks_uri on plain http": func(as *authServer) { as.jwksURI = "http://auth.example.com/jwks" },
		"redirect to plain http": func(as *authServer) {
			as.jwksURI, as.redirectTo = as.URL+"/jwks-redirect", "http://auth.example.com/jwks"
		},
	} {
		t.Run(name, func(t *testing.T) {
			as.set(set)
			k := keySourceFor(t, as, "")
			_, err := k.get(context.Background())
			if !errors.Is(err, errInsecureFetch) {
				t.Fatalf("get = %v, want %v", err, errInsecureFetch)
			}
		})
	}
	// A redirect that stays on loopback http is followed.
	as.set(func(as *authServer) { as.jwksURI, as.redirectTo = as.URL+"/jwks-redirect", as.URL+"/jwks" })
	if _, err := keySourceFor(t, as, "").get(context.Background()); err != nil {
		t.Fatalf("loopback redirect: %v", err)
	}
}

func TestOAuthKeySetSizeIsCapped(t *testing.T) {
	as := newAuthServer(t)
	as.set(func(as *authServer) { as.padding = 2 * maxFetchBytes })
	_, err := keySourceFor(t, as, as.URL+"/jwks").get(context.Background())
	if !errors.Is(err, errFetchTooLarge) {
		t.Fatalf("get = %v, want %v", err, errFetchTooLarge)
	}
}

func TestOAuthSlowKeysAreBoundedByTheRequest(t *testing.T) {
	t.Parallel()
	as := newAuthServer(t)
	as.set(func(as *authServer) { as.hang = true })
	k := newKeySource(as.URL, as.URL+"/jwks", keysRetryEvery+time.Second, hclogNull())
	t.Cleanup(k.close)

	// The first fetch ends with the request that waits for it, not with the
	// fetch timeout.
	ctx, cancel := context.WithTimeout(context.Background(), keysRetryEvery+200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := k.get(ctx); err == nil {
		t.Fatal("keys from a JWKS that never answers")
	}
	if d := time.Since(start); d > keysRetryEvery+700*time.Millisecond {
		t.Errorf("request with a %v deadline waited %v", keysRetryEvery+200*time.Millisecond, d)
	}
	// Retries are spaced from the end of the failed attempt: the next request
	// is answered at once, without another fetch.
	start = time.Now()
	if _, err := k.get(context.Background()); err == nil {
		t.Fatal("keys from a JWKS that never answers")
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("second request waited %v, want an immediate answer", d)
	}
	if n := as.jwksHits.Load(); n != 1 {
		t.Errorf("JWKS fetched %d times, want 1", n)
	}
}

func hclogNull() hclog.Logger { return hclog.NewNullLogger() }
