package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-hclog"
)

// FuzzOAuthToken feeds the verifier bearer values from outside: none may
// panic, each is either accepted or refused as a token (never mistaken for
// the keys being unavailable), and only the good tokens' signed headers and
// claims are ever accepted — the signature covers their exact text.
func FuzzOAuthToken(f *testing.F) {
	as := newAuthServer(f)
	v := newVerifier(&OAuth{Issuer: as.URL, Audience: testAudience, Scopes: []string{"mcp"}}, hclog.NewNullLogger())
	f.Cleanup(v.keys.close)
	goods := []string{as.good(), as.sign(jwt.SigningMethodES256, "ec-1", as.claims())}
	signed := map[string]bool{}
	for _, g := range goods {
		signed[g[:strings.LastIndexByte(g, '.')]] = true
	}

	expired := as.claims()
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	for _, seed := range []string{
		goods[0], goods[1],
		as.sign(jwt.SigningMethodRS256, "rsa-1", expired),
		unsigned(as.claims()),
		"", ".", "..", "a.b.c", "eyJhbGciOiJSUzI1NiJ9..",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		_, err := v.verify(context.Background(), token)
		var refused *tokenError
		switch {
		case err == nil:
			if i := strings.LastIndexByte(token, '.'); i < 0 || !signed[token[:i]] {
				t.Fatalf("accepted a token whose signed part is none of the good ones: %q", token)
			}
		case !errors.As(err, &refused):
			t.Fatalf("verify = %T %v, want a *tokenError", err, err)
		}
	})
}
