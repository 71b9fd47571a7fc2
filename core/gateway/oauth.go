package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// OAuth makes the HTTP front an OAuth 2.1 resource server, as the MCP
// authorization spec asks: clients learn the authorization server from the
// protected-resource metadata (RFC 9728) and send its JWT access tokens, which
// the gateway checks against the server's published keys. Static Tokens keep
// working beside it.
type OAuth struct {
	// Issuer is the authorization server's issuer identifier; a token's iss
	// must equal it, and its metadata is discovered from it.
	Issuer string
	// Audience must be among a token's aud values, so a token issued for
	// another service is never accepted here.
	Audience string
	// JWKSURL is where the signing keys are; "" discovers it from the
	// issuer's authorization server (or OpenID Connect) metadata.
	JWKSURL string
	// Scopes are all required in every token; they are also advertised.
	Scopes []string
	// Resource is the canonical URL of /mcp that clients ask tokens for; ""
	// builds it from each request's scheme and Host.
	Resource string
	// FetchTimeout bounds the whole wait of a request for the keys: metadata
	// discovery and JWKS fetch together (DefaultOAuthFetchTimeout when 0).
	FetchTimeout time.Duration
	// MaxTokenLifetime bounds exp - iat (DefaultMaxTokenLifetime when 0).
	MaxTokenLifetime time.Duration
	// AllowAnyTyp accepts tokens whose typ header is not at+jwt, for
	// authorization servers that predate RFC 9068. Off, an ID token or any
	// other JWT signed by the same keys cannot pass as an access token.
	AllowAnyTyp bool
}

// DefaultOAuthFetchTimeout bounds a metadata or JWKS fetch when
// OAuth.FetchTimeout is zero: a slow authorization server delays a request
// by at most this much, never hangs it.
const DefaultOAuthFetchTimeout = 5 * time.Second

// metadataPath is RFC 9728's well-known path; the path of the resource
// (/mcp) is appended to it.
const metadataPath = "/.well-known/oauth-protected-resource"

func checkOAuth(o *OAuth, handlers map[string]http.Handler) error {
	if o == nil {
		return nil
	}
	if msg := checkAbsURL(o.Issuer); msg != "" {
		return &OptionError{Field: "OAuth.Issuer", Problem: msg}
	}
	if o.Audience == "" {
		return &OptionError{Field: "OAuth.Audience", Problem: "is empty: tokens would not be bound to this gateway"}
	}
	if o.JWKSURL != "" {
		if msg := checkAbsURL(o.JWKSURL); msg != "" {
			return &OptionError{Field: "OAuth.JWKSURL", Problem: msg}
		}
	}
	if o.Resource != "" {
		if msg := checkAbsURL(o.Resource); msg != "" {
			return &OptionError{Field: "OAuth.Resource", Problem: msg}
		}
	}
	for i, sc := range o.Scopes {
		if !validScope(sc) {
			return &OptionError{Field: fmt.Sprintf("OAuth.Scopes[%d]", i), Problem: fmt.Sprintf("%q is not a scope token (RFC 6749 section 3.3)", sc)}
		}
	}
	if o.FetchTimeout < 0 {
		return &OptionError{Field: "OAuth.FetchTimeout", Problem: "is negative"}
	}
	if o.MaxTokenLifetime < 0 {
		return &OptionError{Field: "OAuth.MaxTokenLifetime", Problem: "is negative"}
	}
	for _, p := range metadataPaths(o) {
		if _, taken := handlers["GET "+p]; taken {
			return &OptionError{Field: fmt.Sprintf("Handlers[%q]", "GET "+p), Problem: "is where the OAuth protected-resource metadata is served"}
		}
	}
	return nil
}

// checkAbsURL accepts an absolute http or https URL with a host and no
// fragment.
func checkAbsURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
		return fmt.Sprintf("%q is not an absolute http(s) URL without a fragment", s)
	}
	return ""
}

// validScope is RFC 6749's scope-token: printable ASCII without space, '"'
// or '\', so a scope can be quoted in WWW-Authenticate as it is.
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// metadataPaths are where the protected-resource metadata is served: the
// bare well-known path, and the one RFC 9728 derives from the resource URL.
func metadataPaths(o *OAuth) []string {
	paths := []string{metadataPath, metadataPath + endpointPath}
	if u, err := url.Parse(o.Resource); o.Resource != "" && err == nil {
		if p := strings.TrimSuffix(u.Path, "/"); p != "" && p != endpointPath {
			paths = append(paths, metadataPath+p)
		}
	}
	return paths
}

// routes are the extra handlers and, with OAuth, the metadata endpoints.
func (s *Server) routes() map[string]http.Handler {
	if s.opts.OAuth == nil {
		return s.opts.Handlers
	}
	out := make(map[string]http.Handler, len(s.opts.Handlers)+3)
	for p, h := range s.opts.Handlers {
		out[p] = h
	}
	for _, p := range metadataPaths(s.opts.OAuth) {
		out["GET "+p] = http.HandlerFunc(s.serveResourceMetadata)
	}
	return out
}

// isMetadataRequest tells the requests that need no token: a client reads
// the metadata to learn how to get one.
func (s *Server) isMetadataRequest(r *http.Request) bool {
	if s.auth == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	for _, p := range metadataPaths(s.opts.OAuth) {
		if r.URL.Path == p {
			return true
		}
	}
	return false
}

// resourceFromAudience makes the advertised resource and the required
// audience agree: clients ask the authorization server for a token for the
// advertised resource, which it puts in aud, so a resource other than the
// audience means every such token is refused. An unset Resource becomes the
// Audience when that is a URL; any remaining disagreement is logged at start.
func (s *Server) resourceFromAudience(o *OAuth) *OAuth {
	out := *o
	switch {
	case out.Resource == "" && checkAbsURL(out.Audience) == "":
		out.Resource = out.Audience
		s.log.Info("OAuth: advertising the audience as the protected resource", "resource", out.Resource)
	case out.Resource == "":
		s.log.Warn("OAuth: audience is not a URL, so the advertised resource (built from each request's Host) cannot match it; "+
			"tokens clients get for that resource will be refused unless the authorization server sets this audience",
			"audience", out.Audience)
	case out.Resource != out.Audience:
		s.log.Warn("OAuth: resource and audience differ; tokens clients get for the advertised resource will be refused unless the authorization server also puts the audience in aud",
			"resource", out.Resource, "audience", out.Audience)
	}
	return &out
}

// resourceMetadata is RFC 9728's document, limited to what clients use.
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
}

func (s *Server) serveResourceMetadata(w http.ResponseWriter, r *http.Request) {
	o := s.opts.OAuth
	w.Header().Set("Cache-Control", "max-age=300")
	writeJSON(w, http.StatusOK, resourceMetadata{
		Resource:               s.resourceURL(r),
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        o.Scopes,
		BearerMethodsSupported: []string{"header"},
	})
}

// resourceURL is the canonical URL of /mcp: the configured one, else this
// request's scheme and Host (already checked against the allowed hosts).
func (s *Server) resourceURL(r *http.Request) string {
	if s.opts.OAuth.Resource != "" {
		return s.opts.OAuth.Resource
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + endpointPath
}

// metadataURL is where RFC 9728 puts the metadata of resource: the
// well-known path inserted between host and path.
func metadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return resource
	}
	return u.Scheme + "://" + u.Host + metadataPath + strings.TrimSuffix(u.Path, "/")
}

// authenticateOAuth handles a request whose bearer is no static token and
// reports whether it answered it. Unanswered, the request carries a good
// access token, whose credential is returned; otherwise the answer is 401 or
// 403 with an RFC 6750 challenge that points at the metadata, or 503 when the
// authorization server's keys cannot be had.
func (s *Server) authenticateOAuth(w http.ResponseWriter, r *http.Request, problem string) (credential, bool) {
	if problem != "invalid_token" {
		w.Header().Set("WWW-Authenticate", s.challenge(r, nil))
		http.Error(w, "unauthorized: a valid bearer token is required", http.StatusUnauthorized)
		return credential{}, true
	}
	_, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	cred, err := s.auth.verify(r.Context(), strings.TrimSpace(token))
	if err == nil {
		return cred, false
	}
	var unavailable *keysUnavailableError
	if errors.As(err, &unavailable) {
		w.Header().Set("Retry-After", strconv.Itoa(int(max(unavailable.retryAfter.Round(time.Second)/time.Second, 1))))
		http.Error(w, "service unavailable: the authorization server's signing keys could not be fetched to check the access token; the gateway log has the cause", http.StatusServiceUnavailable)
		return credential{}, true
	}
	var refused *tokenError
	if errors.As(err, &refused) {
		s.auth.refusals.note(refused, r.RemoteAddr)
		w.Header().Set("WWW-Authenticate", s.challenge(r, refused))
		status, msg := http.StatusUnauthorized, "unauthorized: "+refused.reason
		if refused.code == codeInsufficientScope {
			status, msg = http.StatusForbidden, "forbidden: "+refused.reason
		}
		http.Error(w, msg, status)
		return credential{}, true
	}
	s.log.Error("access token check failed", "error", err)
	http.Error(w, "internal error checking the access token", http.StatusInternalServerError)
	return credential{}, true
}

// challenge is the WWW-Authenticate value: RFC 6750's error, RFC 9728's
// resource_metadata, and the scopes a token needs.
func (s *Server) challenge(r *http.Request, refused *tokenError) string {
	var parts []string
	if refused != nil {
		parts = append(parts, `error="`+refused.code+`"`)
		if refused.code == codeInvalidToken {
			parts = append(parts, `error_description=`+quote(refused.reason))
		}
	}
	parts = append(parts, `resource_metadata=`+quote(metadataURL(s.resourceURL(r))))
	if sc := s.opts.OAuth.Scopes; len(sc) > 0 {
		parts = append(parts, `scope="`+strings.Join(sc, " ")+`"`)
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// quote makes an RFC 9110 quoted-string of s; the Host a request carries is
// part of some values.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
