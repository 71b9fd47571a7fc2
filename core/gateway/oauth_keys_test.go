package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-hclog"
)

func TestOAuthUnknownKidRefetchesThenRefuses(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil); !a.passed() {
		t.Fatalf("good token: %d %s", a.status, a.body)
	}
	stranger := "Bearer " + as.sign(jwt.SigningMethodRS256, "unpublished", as.claims())
	start := time.Now()
	a := send(t, http.MethodPost, ts.URL+"/mcp", stranger, nil)
	if a.status != 401 || !strings.Contains(a.header.Get("WWW-Authenticate"), `error_description="unknown signing key"`) {
		t.Fatalf("unknown kid: %d %q", a.status, a.header.Get("WWW-Authenticate"))
	}
	if n := as.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2: the first fetch, then one for the unknown kid", n)
	}
	// Another unknown kid at once: refused without asking again.
	if a := send(t, http.MethodPost, ts.URL+"/mcp", stranger, nil); a.status != 401 {
		t.Fatalf("second unknown kid: %d", a.status)
	}
	if n := as.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times after a second unknown kid, want still 2 (rate-limited)", n)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing unknown kids took %v", d)
	}
}

func TestOAuthRotatedKeyIsFetched(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil); !a.passed() {
		t.Fatalf("good token: %d %s", a.status, a.body)
	}
	as.set(func(as *authServer) { as.isRotated = true })
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.sign(jwt.SigningMethodRS256, "rsa-2", as.claims()), nil); !a.passed() {
		t.Fatalf("token signed with the new key: %d %q %s", a.status, a.header.Get("WWW-Authenticate"), a.body)
	}
	if n := as.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2", n)
	}
}

// TestOAuthKeyReplacedUnderItsKid: a key the authorization server replaces
// under a kid the gateway knows is fetched at the first token it signs, not
// an hour later; a flood of forged signatures costs the server no fetch more.
func TestOAuthKeyReplacedUnderItsKid(t *testing.T) {
	as := newAuthServer(t)
	ts, _ := oauthGateway(t, as, nil)
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil); !a.passed() {
		t.Fatalf("good token: %d %s", a.status, a.body)
	}
	replacement, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	as.set(func(as *authServer) { as.rsaKey = replacement })
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil); !a.passed() {
		t.Fatalf("token signed by the key now published as rsa-1: %d %q", a.status, a.header.Get("WWW-Authenticate"))
	}
	if n := as.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2: the first fetch, then one for the replaced key", n)
	}
	forger, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	forged := jwt.NewWithClaims(jwt.SigningMethodRS256, as.claims())
	forged.Header["kid"], forged.Header["typ"] = "rsa-1", "at+jwt"
	token, err := forged.SignedString(forger)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+token, nil)
		if a.status != 401 || !strings.Contains(a.header.Get("WWW-Authenticate"), "invalid signature") {
			t.Fatalf("forged signature: %d %q", a.status, a.header.Get("WWW-Authenticate"))
		}
	}
	if n := as.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times after 20 forged signatures, want still 2 (rate-limited)", n)
	}
}

// TestOAuthKeysFetchedWhenServingStarts: the keys are fetched as the
// gateway starts listening, before any request, and an authorization server
// that cannot be reached is in the log then, naming what failed.
func TestOAuthKeysFetchedWhenServingStarts(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	as := newAuthServer(t)
	for _, tc := range []struct {
		name, issuer, want string
	}{
		{"reachable", as.URL, "fetched the authorization server's signing keys: url=" + as.URL + "/jwks"},
		{"unreachable", gone.URL, "cannot check access tokens: signing keys unavailable: url=" + gone.URL + "/.well-known/oauth-authorization-server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := &syncWriter{w: &bytes.Buffer{}}
			f := newFixture(t, func(opts *Options) {
				opts.OAuth = &OAuth{Issuer: tc.issuer, Audience: testAudience}
				opts.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})
			})
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- f.srv.ServeHTTP(ctx, "127.0.0.1:0", nil) }()
			defer func() {
				cancel()
				if err := <-served; err != nil {
					t.Error(err)
				}
			}()
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(logs.String(), tc.want) {
				if time.Now().After(deadline) {
					t.Fatalf("no %q in the log 5 s after start, with no request:\n%s", tc.want, logs)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func TestOAuthKeysUnavailable(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL + "/jwks"
	gone.Close()

	for _, tc := range []struct {
		name    string
		setup   func(as *authServer, o *OAuth)
		inLog   string
		maxTime time.Duration
	}{
		{name: "JWKS host down", setup: func(_ *authServer, o *OAuth) { o.JWKSURL = goneURL },
			inLog: goneURL, maxTime: time.Second},
		{name: "JWKS answers 500", setup: func(as *authServer, _ *OAuth) { as.jwksStatus = 500 },
			inLog: "/jwks", maxTime: time.Second},
		{name: "JWKS never answers", setup: func(as *authServer, o *OAuth) { as.hang, o.FetchTimeout = true, 300*time.Millisecond },
			inLog: "/jwks", maxTime: time.Second},
		{name: "no metadata", setup: func(as *authServer, _ *OAuth) { as.metadataAt = "" },
			inLog: "/.well-known/oauth-authorization-server", maxTime: time.Second},
		{name: "metadata of another issuer", setup: func(as *authServer, _ *OAuth) { as.issuer = "https://impostor.example.com" },
			inLog: `names issuer \"https://impostor.example.com\"`, maxTime: time.Second},
		{name: "empty key set", setup: func(as *authServer, o *OAuth) { o.JWKSURL = as.URL + "/jwks-empty" },
			inLog: "/jwks-empty", maxTime: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newAuthServer(t)
			ts, logs := oauthGateway(t, as, func(o *OAuth) { as.set(func(as *authServer) { tc.setup(as, o) }) })
			for i := range 2 {
				start := time.Now()
				a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil)
				if d := time.Since(start); d > tc.maxTime {
					t.Errorf("request %d took %v", i, d)
				}
				if a.status != 503 || a.header.Get("Retry-After") == "" || !strings.Contains(a.body, "signing keys could not be fetched") {
					t.Fatalf("request %d: %d Retry-After %q %s; want 503 with Retry-After", i, a.status, a.header.Get("Retry-After"), a.body)
				}
			}
			log := logs.String()
			if !strings.Contains(log, "signing keys unavailable") || !strings.Contains(log, tc.inLog) {
				t.Errorf("log lacks the failure naming %s:\n%s", tc.inLog, log)
			}
			if n := strings.Count(log, "[ERROR]"); n != 1 {
				t.Errorf("%d error lines for two requests within the retry interval, want 1:\n%s", n, log)
			}
		})
	}
}

func TestOAuthJWKSDownAfterKeysFetched(t *testing.T) {
	as := newAuthServer(t)
	ts, logs := oauthGateway(t, as, nil)
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil); !a.passed() {
		t.Fatalf("good token: %d %s", a.status, a.body)
	}
	as.Close()

	start := time.Now()
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.sign(jwt.SigningMethodES256, "ec-1", as.claims()), nil); !a.passed() {
		t.Errorf("token with a cached key while the JWKS is down: %d %s", a.status, a.body)
	}
	a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.sign(jwt.SigningMethodRS256, "rsa-2", as.claims()), nil)
	if a.status != 401 || !strings.Contains(a.header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("unknown kid while the JWKS is down: %d %q, want 401 invalid_token", a.status, a.header.Get("WWW-Authenticate"))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
	if log := logs.String(); !strings.Contains(log, "keys failed") || !strings.Contains(log, as.URL+"/jwks") {
		t.Errorf("log does not name the JWKS that failed:\n%s", log)
	}
}

func TestOAuthDiscovery(t *testing.T) {
	for _, tc := range []struct {
		name       string
		metadataAt string
		jwksURL    bool
		metaHits   int32
	}{
		{name: "RFC 8414 metadata", metadataAt: "/.well-known/oauth-authorization-server", metaHits: 1},
		{name: "OpenID Connect fallback", metadataAt: "/.well-known/openid-configuration", metaHits: 2},
		{name: "configured jwks_url", metadataAt: "", jwksURL: true, metaHits: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as := newAuthServer(t)
			as.metadataAt = tc.metadataAt
			ts, _ := oauthGateway(t, as, func(o *OAuth) {
				if tc.jwksURL {
					o.JWKSURL = as.URL + "/jwks"
				}
			})
			for range 2 {
				if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil); !a.passed() {
					t.Fatalf("good token: %d %s", a.status, a.body)
				}
			}
			if n := as.metaHits.Load(); n != tc.metaHits {
				t.Errorf("metadata asked %d times, want %d", n, tc.metaHits)
			}
			if n := as.jwksHits.Load(); n != 1 {
				t.Errorf("JWKS fetched %d times, want 1", n)
			}
		})
	}
}

func TestMetadataURLs(t *testing.T) {
	for issuer, want := range map[string][]string{
		"https://auth.example.com": {
			"https://auth.example.com/.well-known/oauth-authorization-server",
			"https://auth.example.com/.well-known/openid-configuration",
		},
		"https://auth.example.com/tenant1/": {
			"https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://auth.example.com/.well-known/openid-configuration/tenant1",
			"https://auth.example.com/tenant1/.well-known/openid-configuration",
		},
	} {
		if got := metadataURLs(issuer); !reflect.DeepEqual(got, want) {
			t.Errorf("metadataURLs(%q) =\n%q\nwant\n%q", issuer, got, want)
		}
	}
}

func TestNewRejectsBadOAuthOptions(t *testing.T) {
	good := func() *OAuth { return &OAuth{Issuer: "https://auth.example.com", Audience: testAudience} }
	for name, mod := range map[string]func(*Options){
		"no issuer":          func(o *Options) { o.OAuth.Issuer = "" },
		"relative issuer":    func(o *Options) { o.OAuth.Issuer = "auth.example.com" },
		"no audience":        func(o *Options) { o.OAuth.Audience = "" },
		"bad jwks url":       func(o *Options) { o.OAuth.JWKSURL = "ftp://auth.example.com/jwks" },
		"resource fragment":  func(o *Options) { o.OAuth.Resource = "https://gw.example.com/mcp#x" },
		"scope with a quote": func(o *Options) { o.OAuth.Scopes = []string{`mcp"`} },
		"empty scope":        func(o *Options) { o.OAuth.Scopes = []string{""} },
		"negative timeout":   func(o *Options) { o.OAuth.FetchTimeout = -time.Second },
		"handler on the metadata path": func(o *Options) {
			o.Handlers = map[string]http.Handler{"GET /.well-known/oauth-protected-resource": http.NotFoundHandler()}
		},
	} {
		_, err := buildFixture(func(o *Options) {
			o.OAuth = good()
			mod(o)
		})
		if _, ok := err.(*OptionError); !ok {
			t.Errorf("%s: New = %v, want an *OptionError", name, err)
		}
	}
	f, err := buildFixture(func(o *Options) { o.OAuth = good() })
	if err != nil {
		t.Fatalf("good options: %v", err)
	}
	f.srv.Close()
}

// A jwks_url may carry basic-auth credentials; the password shows in no log
// line and no answer, whether the keys are fetched or not.
func TestOAuthJWKSURLPasswordNotShown(t *testing.T) {
	as := newAuthServer(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	for name, base := range map[string]string{"fetched": as.URL, "host down": goneURL} {
		t.Run(name, func(t *testing.T) {
			withUser := strings.Replace(base, "http://", "http://reader:hunter2@", 1) + "/jwks"
			ts, logs := oauthGateway(t, as, func(o *OAuth) { o.JWKSURL = withUser })
			a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.good(), nil)
			if name == "fetched" && !a.passed() {
				t.Fatalf("good token: %d %s", a.status, a.body)
			}
			log := logs.String()
			if strings.Contains(log+a.body, "hunter2") {
				t.Errorf("the password shows:\nanswer %s\nlog:\n%s", a.body, log)
			}
			if !strings.Contains(log, "reader:xxxxx@") {
				t.Errorf("log does not name the URL, password hidden:\n%s", log)
			}
		})
	}
}

// TestOAuthKidlessTokenMeetsANewSigningKey: a token without a kid whose
// algorithm no key held is for (the authorization server has just started
// publishing a signing key for it) is checked against the keys fetched
// again, under the same limit as an unknown kid. With "alg" on every key,
// no key is even tried, so this is not an invalid signature.
func TestOAuthKidlessTokenMeetsANewSigningKey(t *testing.T) {
	as := newAuthServer(t)
	as.set(func(as *authServer) { as.rsaUse, as.withAlg = "enc", true })
	ts, _ := oauthGateway(t, as, nil)
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+as.sign(jwt.SigningMethodES256, "ec-1", as.claims()), nil); !a.passed() {
		t.Fatalf("good token: %d %s", a.status, a.body)
	}
	as.set(func(as *authServer) { as.rsaUse = "sig" })
	if a := send(t, http.MethodPost, ts.URL+"/mcp", "Bearer "+withoutKid(t, as, jwt.SigningMethodRS256, "rsa-1"), nil); !a.passed() {
		t.Fatalf("token without a kid signed by the key now published for signing: %d %q", a.status, a.header.Get("WWW-Authenticate"))
	}
	if n := as.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times, want 2: the first fetch, then one for the new signing key", n)
	}

	// Tokens of an algorithm the set still has no signing key for are
	// refused, and cost the authorization server one fetch in all.
	other := newAuthServer(t)
	other.set(func(as *authServer) { as.rsaUse, as.withAlg = "enc", true })
	ts2, _ := oauthGateway(t, other, nil)
	for range 5 {
		a := send(t, http.MethodPost, ts2.URL+"/mcp", "Bearer "+withoutKid(t, other, jwt.SigningMethodRS256, "rsa-1"), nil)
		if a.status != 401 || !strings.Contains(a.header.Get("WWW-Authenticate"), "unknown signing key") {
			t.Fatalf("token without a kid and no signing key for RS256: %d %q", a.status, a.header.Get("WWW-Authenticate"))
		}
	}
	if n := other.jwksHits.Load(); n != 2 {
		t.Errorf("JWKS fetched %d times for 5 tokens no key is for, want 2 (the first fetch, one refetch)", n)
	}
}
