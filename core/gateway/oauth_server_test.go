package gateway

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// testAudience is the audience the gateways under test are configured with.
const testAudience = "https://gw.example.com/mcp"

// authServer is the outside party of the OAuth tests: an authorization server
// that publishes its metadata and JWKS over real HTTP, with keys made here.
// The JWKs are written out by hand, not by the library under test.
type authServer struct {
	*httptest.Server
	t        testing.TB
	rsaKey   *rsa.PrivateKey
	ecKey    *ecdsa.PrivateKey
	edKey    ed25519.PrivateKey
	rotated  *rsa.PrivateKey // published only after rotate
	jwksHits atomic.Int32
	metaHits atomic.Int32

	mu sync.Mutex
	// metadataAt is the path the metadata is served at ("" = none).
	metadataAt string
	// issuer is what the metadata document claims (the server's URL by default).
	issuer     string
	jwksStatus int
	isRotated  bool
	// hang makes the JWKS endpoint never answer until the client gives up.
	hang bool
	// jwksURI replaces the jwks_uri the metadata names ("" = this server's).
	jwksURI string
	// rsaUse is the "use" published for rsa-1 ("sig" by default).
	rsaUse string
	// withAlg publishes each key's "alg" too.
	withAlg bool
	// padding is how many bytes of filler the JWKS document carries.
	padding int
	// redirectTo is where /jwks-redirect sends clients.
	redirectTo string
}

func newAuthServer(t testing.TB) *authServer {
	t.Helper()
	as := &authServer{t: t, metadataAt: "/.well-known/oauth-authorization-server", jwksStatus: http.StatusOK, rsaUse: "sig"}
	var err error
	if as.rsaKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if as.rotated, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if as.ecKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	if _, as.edKey, err = ed25519.GenerateKey(rand.Reader); err != nil {
		t.Fatal(err)
	}
	as.Server = httptest.NewServer(http.HandlerFunc(as.serve))
	as.issuer = as.URL
	t.Cleanup(as.Close)
	return as
}

func (as *authServer) set(fn func(as *authServer)) {
	as.mu.Lock()
	defer as.mu.Unlock()
	fn(as)
}

func (as *authServer) serve(w http.ResponseWriter, r *http.Request) {
	as.mu.Lock()
	metadataAt, issuer, status, rotated, hang := as.metadataAt, as.issuer, as.jwksStatus, as.isRotated, as.hang
	jwksURI, redirectTo := as.jwksURI, as.redirectTo
	as.mu.Unlock()
	if jwksURI == "" {
		jwksURI = as.URL + "/jwks"
	}
	switch {
	case r.URL.Path == "/jwks-redirect":
		http.Redirect(w, r, redirectTo, http.StatusFound)
	case r.URL.Path == "/jwks":
		as.jwksHits.Add(1)
		if hang {
			<-r.Context().Done()
			return
		}
		if status != http.StatusOK {
			http.Error(w, "down for maintenance", status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, as.jwks(rotated))
	case r.URL.Path == "/jwks-empty":
		as.jwksHits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"keys":[]}`)
	case strings.HasPrefix(r.URL.Path, "/.well-known/"):
		as.metaHits.Add(1)
		if r.URL.Path != metadataAt {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":"%s/authorize","token_endpoint":"%s/token","jwks_uri":%q,"response_types_supported":["code"]}`,
			issuer, as.URL, as.URL, jwksURI)
	default:
		http.NotFound(w, r)
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwks is the published key set; keys carry no "alg" unless withAlg, so the
// gateway's own algorithm allow-list is what keeps other algorithms out.
func (as *authServer) jwks(rotated bool) string {
	as.mu.Lock()
	use, padding, rsaKey, withAlg := as.rsaUse, as.padding, as.rsaKey, as.withAlg
	as.mu.Unlock()
	alg := func(name string) string {
		if !withAlg {
			return ""
		}
		return fmt.Sprintf(`"alg":%q,`, name)
	}
	rsaJWK := func(kid, use string, k *rsa.PublicKey) string {
		return fmt.Sprintf(`{"kty":"RSA",%s"kid":%q,"use":%q,"n":%q,"e":%q}`, alg("RS256"), kid, use, b64(k.N.Bytes()), b64(big.NewInt(int64(k.E)).Bytes()))
	}
	ecPub, err := as.ecKey.PublicKey.Bytes() // uncompressed point: 0x04 || X || Y
	if err != nil {
		as.t.Fatal(err)
	}
	keys := []string{
		rsaJWK("rsa-1", use, &rsaKey.PublicKey),
		fmt.Sprintf(`{"kty":"EC",%s"kid":"ec-1","use":"sig","crv":"P-256","x":%q,"y":%q}`, alg("ES256"), b64(ecPub[1:33]), b64(ecPub[33:])),
		fmt.Sprintf(`{"kty":"OKP",%s"kid":"ed-1","use":"sig","crv":"Ed25519","x":%q}`, alg("EdDSA"), b64(as.edKey.Public().(ed25519.PublicKey))),
	}
	if rotated {
		keys = append(keys, rsaJWK("rsa-2", "sig", &as.rotated.PublicKey))
	}
	return `{"keys":[` + strings.Join(keys, ",") + `],"x-padding":"` + strings.Repeat("x", padding) + `"}`
}

// claims are a good access token's claims for this server and testAudience.
func (as *authServer) claims() jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss":   as.URL,
		"sub":   "user-1",
		"aud":   testAudience,
		"iat":   now.Unix(),
		"exp":   now.Add(5 * time.Minute).Unix(),
		"scope": "mcp",
	}
}

// sign makes a token with method and the key published under kid (a key
// never published for "rsa-2" unless rotated, and "unpublished").
func (as *authServer) sign(method jwt.SigningMethod, kid string, claims jwt.MapClaims) string {
	as.t.Helper()
	return as.signTyp(method, kid, "at+jwt", claims)
}

// signTyp is sign with the typ header given ("" = none).
func (as *authServer) signTyp(method jwt.SigningMethod, kid, typ string, claims jwt.MapClaims) string {
	as.t.Helper()
	var key any
	switch kid {
	case "rsa-1":
		key = as.rsaKey
	case "rsa-2", "unpublished":
		key = as.rotated
	case "ec-1":
		key = as.ecKey
	case "ed-1":
		key = as.edKey
	default:
		as.t.Fatalf("no key %q", kid)
	}
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = kid
	if typ == "" {
		delete(tok.Header, "typ")
	} else {
		tok.Header["typ"] = typ
	}
	s, err := tok.SignedString(key)
	if err != nil {
		as.t.Fatal(err)
	}
	return s
}

// good is a valid RS256 token.
func (as *authServer) good() string { return as.sign(jwt.SigningMethodRS256, "rsa-1", as.claims()) }

// unsigned is an "alg":"none" token with claims that would otherwise pass.
func unsigned(claims jwt.MapClaims) string {
	header, _ := json.Marshal(map[string]string{"alg": "none", "typ": "JWT", "kid": "rsa-1"})
	body, _ := json.Marshal(claims)
	return b64(header) + "." + b64(body) + "."
}
