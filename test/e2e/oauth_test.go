package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/toolgate/toolgate/internal/testparts"
)

// issuer is the authorization server of the OAuth test, below what the test
// is about: RFC 8414 metadata, a JWKS and a token endpoint for the client
// credentials grant, over real HTTP, signing real RS256 access tokens.
type issuer struct {
	*httptest.Server
	t   *testing.T
	key *rsa.PrivateKey

	mu        sync.Mutex
	resources []string // the resource parameter of each token request
}

const (
	oauthClientID     = "e2e-client"
	oauthClientSecret = "e2e-secret"
)

func newIssuer(t *testing.T) *issuer {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{t: t, key: key}
	is.Server = httptest.NewServer(http.HandlerFunc(is.serve))
	t.Cleanup(is.Close)
	return is
}

func (is *issuer) serve(w http.ResponseWriter, r *http.Request) {
	b64 := base64.RawURLEncoding.EncodeToString
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": is.URL, "jwks_uri": is.URL + "/jwks",
			"authorization_endpoint": is.URL + "/authorize", "token_endpoint": is.URL + "/token",
			"response_types_supported": []string{"code"}, "grant_types_supported": []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		})
	case "/jwks":
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"keys":[{"kty":"RSA","kid":"k1","use":"sig","alg":"RS256","n":%q,"e":%q}]}`,
			b64(is.key.N.Bytes()), b64(big.NewInt(int64(is.key.E)).Bytes()))
	case "/token":
		_ = r.ParseForm()
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if r.PostForm.Get("grant_type") != "client_credentials" || id != oauthClientID || secret != oauthClientSecret {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"error":"invalid_client"}`)
			return
		}
		resource := r.PostForm.Get("resource")
		is.mu.Lock()
		is.resources = append(is.resources, resource)
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"access_token": is.token(resource, 5*time.Minute), "token_type": "Bearer", "expires_in": 300, "scope": "mcp",
		})
	default:
		http.NotFound(w, r)
	}
}

// token is an access token for aud that expires after life (before now
// when negative).
func (is *issuer) token(aud string, life time.Duration) string {
	now := time.Now()
	iat := now
	if life < 0 {
		iat = now.Add(2 * life)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{
		"iss": is.URL, "sub": oauthClientID, "client_id": oauthClientID, "aud": aud, "scope": "mcp",
		"iat": iat.Unix(), "exp": now.Add(life).Unix(),
	})
	tok.Header["kid"], tok.Header["typ"] = "k1", "at+jwt"
	s, err := tok.SignedString(is.key)
	if err != nil {
		is.t.Fatal(err)
	}
	return s
}

// freeAddr is a loopback address nothing listens on now, for a gateway whose
// URL its config must name before it starts.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func get(t *testing.T, method, url, token string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// TestOAuthResourceServer: the gateway as an OAuth resource server, met by
// the official TypeScript client with nothing but the gateway's URL and its
// client credentials: the 401 points at the protected-resource metadata, that
// names the authorization server, the client gets a token for the resource
// and calls tools with it. A static token keeps serving /metrics beside it,
// the probes need none, and an expired token is refused with a log line that
// says so without showing it.
func TestOAuthResourceServer(t *testing.T) {
	is := newIssuer(t)
	addr := freeAddr(t)
	audience := "http://" + addr + "/mcp"
	g := startGateway(t, setup{
		Listen: fmt.Sprintf("tokens = [\"scrape-token\"]\n  oauth {\n    issuer = %q\n    audience = %q\n    scopes = [\"mcp\"]\n  }", is.URL, audience),
		Env:    []string{"TOOLGATE_LISTEN_HTTP=" + addr},
	})
	if g.URL != audience {
		t.Fatalf("gateway serves %s, want %s", g.URL, audience)
	}

	status, header, _ := get(t, http.MethodPost, g.URL, "")
	metadataURL := "http://" + addr + "/.well-known/oauth-protected-resource/mcp"
	if want := `Bearer resource_metadata="` + metadataURL + `", scope="mcp"`; status != http.StatusUnauthorized || header.Get("WWW-Authenticate") != want {
		t.Fatalf("no token: %d WWW-Authenticate %q, want 401 %q", status, header.Get("WWW-Authenticate"), want)
	}
	status, _, body := get(t, http.MethodGet, metadataURL, "")
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	if err := json.Unmarshal([]byte(body), &meta); status != http.StatusOK || err != nil {
		t.Fatalf("metadata: %d %v %s", status, err, body)
	}
	if meta.Resource != audience || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != is.URL || strings.Join(meta.ScopesSupported, " ") != "mcp" {
		t.Errorf("metadata: %+v, want resource %s, authorization server %s, scope mcp", meta, audience, is.URL)
	}

	var run struct {
		Tools     []string       `json:"tools"`
		Token     map[string]any `json:"token"`
		ListTools struct {
			IsError bool `json:"isError"`
		} `json:"listTools"`
	}
	sdk := filepath.Join(testparts.NodeModules(t), "node_modules", "@modelcontextprotocol", "sdk")
	testparts.RunNodeJSON(t, 60*time.Second, &run, []string{"MCP_SDK_DIR=" + sdk},
		testdataScript(t, "oauth-client.mjs"), g.URL, is.URL, oauthClientID, oauthClientSecret)
	if !strings.Contains(strings.Join(run.Tools, ","), "call_tool") || run.ListTools.IsError {
		t.Errorf("client with an access token: tools %v, list_tools isError %v", run.Tools, run.ListTools.IsError)
	}
	if run.Token["aud"] != audience {
		t.Errorf("the client's token has aud %v, want %s", run.Token["aud"], audience)
	}
	is.mu.Lock()
	resources := is.resources
	is.mu.Unlock()
	if len(resources) == 0 || resources[0] != audience {
		t.Errorf("token requests named resources %q, want %s", resources, audience)
	}

	if status, _, _ := get(t, http.MethodGet, "http://"+addr+"/metrics", "scrape-token"); status != http.StatusOK {
		t.Errorf("/metrics with the static token: %d", status)
	}
	if status, _, _ := get(t, http.MethodGet, "http://"+addr+"/metrics", ""); status != http.StatusUnauthorized {
		t.Errorf("/metrics without a token: %d, want 401", status)
	}
	if status, _, _ := get(t, http.MethodGet, "http://"+addr+"/healthz", ""); status != http.StatusOK {
		t.Errorf("/healthz without a token: %d", status)
	}

	expired := is.token(audience, -10*time.Minute)
	status, header, _ = get(t, http.MethodPost, g.URL, expired)
	if status != http.StatusUnauthorized || !strings.Contains(header.Get("WWW-Authenticate"), `error="invalid_token", error_description="access token expired"`) {
		t.Errorf("expired token: %d %q", status, header.Get("WWW-Authenticate"))
	}
	if _, err := g.log.waitFor(regexp.MustCompile(`access token refused: issuer=\S+ reason="access token expired".* token_exp=`), 5*time.Second, g.exited); err != nil {
		t.Errorf("no log line naming the expired token's exp: %v", err)
	}
	if sig := expired[strings.LastIndexByte(expired, '.')+1:]; g.log.contains(sig) {
		t.Errorf("the gateway log shows an access token")
	}
}
