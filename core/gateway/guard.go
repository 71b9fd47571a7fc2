package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// loopbackNames are the host names a request to a local gateway carries. A
// browser page on another site that rebinds its DNS name to 127.0.0.1 still
// sends its own name in Host and Origin, which is what these checks catch.
var loopbackNames = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}

// guard applies the HTTP access rules before any MCP handling: Host and Origin
// against DNS rebinding (403), the bearer token — a static one, else an OAuth
// access token (401, 403 for missing scopes) — and the body limit (413).
func (s *Server) guard(next http.Handler) http.Handler {
	hashes := make([][sha256.Size]byte, len(s.opts.Tokens))
	prints := make([]string, len(s.opts.Tokens))
	for i, tok := range s.opts.Tokens {
		hashes[i] = sha256.Sum256([]byte(tok))
		prints[i] = tokenPrint(tok)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			s.log.Warn("HTTP request refused: Host not allowed", "host", r.Host, "remote", r.RemoteAddr)
			http.Error(w, fmt.Sprintf("forbidden: Host %q is not allowed; add it to listen.allowed_hosts to serve it", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" {
			if !s.originAllowed(origin) {
				s.log.Warn("HTTP request refused: Origin not allowed", "origin", origin, "remote", r.RemoteAddr)
				http.Error(w, fmt.Sprintf("forbidden: Origin %q is not allowed; add it to listen.allowed_origins to serve it", origin), http.StatusForbidden)
				return
			}
			if allowCORS(w, r, origin) {
				return
			}
		}
		if (len(hashes) > 0 || s.auth != nil) && !s.isMetadataRequest(r) {
			index, problem := authorize(r, hashes)
			switch {
			case problem == "":
				r = r.WithContext(withCredential(r.Context(), credential{who: staticPrincipal(index, prints[index])}))
			case s.auth != nil:
				cred, answered := s.authenticateOAuth(w, r, problem)
				if answered {
					return
				}
				r = r.WithContext(withCredential(r.Context(), cred))
			default:
				challenge := `Bearer realm="toolgate"`
				if problem == "invalid_token" {
					challenge += `, error="invalid_token"`
				}
				w.Header().Set("WWW-Authenticate", challenge)
				http.Error(w, "unauthorized: a valid bearer token is required", http.StatusUnauthorized)
				return
			}
		}
		if r.ContentLength > s.maxBytes {
			s.writeTooLarge(w)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.maxBytes)
		next.ServeHTTP(w, r)
	})
}

// CORS answers for browsers: a page of an allowed origin may send the MCP
// headers and a bearer token, and read the session id it is given.
const (
	corsMethods = "GET, POST, DELETE"
	corsHeaders = "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID"
	corsExpose  = "Mcp-Session-Id, WWW-Authenticate"
	corsMaxAge  = "600"
)

// allowCORS adds the CORS headers for an allowed origin, and reports
// whether the request was a preflight, which it answers: preflights carry no
// credentials, so they are answered before the token check.
func allowCORS(w http.ResponseWriter, r *http.Request, origin string) bool {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		h.Set("Access-Control-Expose-Headers", corsExpose)
		return false
	}
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", corsHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
	return true
}

// authorize returns "" and the token's index for a request carrying one of
// the tokens, otherwise the RFC 6750 error: "missing" (no credentials) or
// "invalid_token". Every token is compared, in constant time, so timing tells
// nothing about which was close or which matched.
func authorize(r *http.Request, hashes [][sha256.Size]byte) (int, string) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return 0, "missing"
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(token)))
	match, index := 0, 0
	for i := range hashes {
		eq := subtle.ConstantTimeCompare(got[:], hashes[i][:])
		index = subtle.ConstantTimeSelect(eq, i, index)
		match |= eq
	}
	if match == 1 {
		return index, ""
	}
	return 0, "invalid_token"
}

func (s *Server) hostAllowed(host string) bool {
	name := hostname(host)
	if loopbackNames[name] {
		return true
	}
	for _, h := range s.opts.AllowedHosts {
		// An entry with a port allows only that port; without, any port.
		if hasPort(h) && strings.EqualFold(h, host) || !hasPort(h) && hostname(h) == name {
			return true
		}
	}
	return false
}

func (s *Server) originAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackNames[strings.ToLower(u.Hostname())] {
		return true
	}
	want := strings.TrimSuffix(strings.ToLower(origin), "/")
	for _, o := range s.opts.AllowedOrigins {
		if strings.TrimSuffix(strings.ToLower(o), "/") == want {
			return true
		}
	}
	return false
}

// hostname strips the port and IPv6 brackets from a Host value and lowercases it.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

func hasPort(host string) bool {
	_, _, err := net.SplitHostPort(host)
	return err == nil
}

func (s *Server) writeTooLarge(w http.ResponseWriter) {
	s.log.Warn("HTTP request refused: body too large", "limit", s.maxBytes)
	writeJSON(w, http.StatusRequestEntityTooLarge, errorResponse(nil, codeInvalidRequest,
		fmt.Sprintf("request body exceeds the limit of %d bytes (gateway.max_request_bytes)", s.maxBytes)))
}
