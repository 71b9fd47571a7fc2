package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// OAuth is the `listen { oauth {} }` block: the gateway as an OAuth 2.1
// resource server that accepts the JWT access tokens of one authorization
// server, beside any static tokens.
type OAuth struct {
	Issuer   string   // the authorization server's issuer URL; a token's iss must equal it
	Audience string   // must be among a token's aud values
	JWKSURL  string   // "" = discovered from the issuer's metadata
	Scopes   []string // every one required in each token
	Resource string   // canonical URL of the gateway's /mcp; "" = the audience when it is a URL
	// MaxTokenLifetime refuses tokens whose exp - iat is longer; 0 = the gateway's default (24h).
	MaxTokenLifetime time.Duration
	// AllowAnyTyp accepts tokens whose typ header is not at+jwt (RFC 9068).
	AllowAnyTyp bool
}

type oauthSpec struct {
	Issuer        string    `hcl:"issuer"`
	IssuerRange   hcl.Range `hcl:"issuer,attr_value_range"`
	Audience      string    `hcl:"audience"`
	AudienceRange hcl.Range `hcl:"audience,attr_value_range"`
	JWKSURL       *string   `hcl:"jwks_url,optional"`
	JWKSURLRange  hcl.Range `hcl:"jwks_url,attr_value_range"`
	Scopes        []string  `hcl:"scopes,optional"`
	ScopesRange   hcl.Range `hcl:"scopes,attr_value_range"`
	Resource      *string   `hcl:"resource,optional"`
	ResourceRange hcl.Range `hcl:"resource,attr_value_range"`
	MaxLifetime   *string   `hcl:"max_token_lifetime,optional"`
	MaxLifeRange  hcl.Range `hcl:"max_token_lifetime,attr_value_range"`
	AllowAnyTyp   bool      `hcl:"allow_any_typ,optional"`
}

func (d *decoder) oauth(l *Listen, s *oauthSpec) {
	if s == nil {
		return
	}
	o := &OAuth{Issuer: s.Issuer, Audience: s.Audience, Scopes: s.Scopes, AllowAnyTyp: s.AllowAnyTyp}
	l.OAuth = o
	d.duration(&o.MaxTokenLifetime, "max_token_lifetime", s.MaxLifetime, s.MaxLifeRange, true)
	// A required attribute that is missing has been reported by the schema,
	// with its place; its empty value has none and needs no second word.
	if msg := checkIssuer(s.Issuer); msg != "" && s.IssuerRange.Filename != "" {
		d.problem(s.IssuerRange, msg)
	}
	if strings.TrimSpace(s.Audience) == "" && s.AudienceRange.Filename != "" {
		d.problem(s.AudienceRange, `audience is empty; write the audience the authorization server puts in tokens for this gateway, usually its /mcp URL, such as "https://gw.example.com/mcp"`)
	}
	if s.JWKSURL != nil {
		o.JWKSURL = *s.JWKSURL
		if msg := checkFetchURL("jwks_url", o.JWKSURL, "https://auth.example.com/.well-known/jwks.json"); msg != "" {
			d.problem(s.JWKSURLRange, msg)
		}
	}
	if s.Resource != nil {
		o.Resource = *s.Resource
		if u, err := url.Parse(o.Resource); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
			d.problem(s.ResourceRange, fmt.Sprintf(`invalid resource %q; write the URL clients reach the gateway's /mcp at, such as "https://gw.example.com/mcp"`, o.Resource))
		}
	}
	for _, sc := range s.Scopes {
		if msg := checkScope(sc); msg != "" {
			d.problem(s.ScopesRange, msg)
			break
		}
	}
}

// checkIssuer accepts what RFC 8414 calls an issuer: an https URL without
// query, fragment or user info (plain http only on a loopback host, as a test server is).
func checkIssuer(issuer string) string {
	if msg := checkFetchURL("issuer", issuer, "https://auth.example.com"); msg != "" {
		return msg
	}
	u, _ := url.Parse(issuer)
	if u.RawQuery != "" {
		return fmt.Sprintf("invalid issuer %q: an issuer has no query", issuer)
	}
	// The issuer is published to anyone in the protected-resource metadata.
	if u.User != nil {
		return fmt.Sprintf("invalid issuer %q: an issuer carries no user name or password; they would be published to every client in the protected-resource metadata", u.Redacted())
	}
	return ""
}

// checkFetchURL accepts an absolute https URL, or http for a loopback host:
// keys fetched in clear text could be swapped on the way.
func checkFetchURL(name, s, example string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.Fragment != "" {
		return fmt.Sprintf("invalid %s %q; write an https:// URL, such as %q", name, s, example)
	}
	if u.Scheme == "http" && !isLoopback(net.JoinHostPort(u.Hostname(), "0")) {
		return fmt.Sprintf("%s %q must use https: signing keys fetched over plain http could be replaced on the way (http is accepted for a loopback host only)", name, s)
	}
	return ""
}

// checkScope accepts RFC 6749's scope-token: printable ASCII without space,
// '"' or '\'.
func checkScope(sc string) string {
	for _, c := range []byte(sc) {
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return fmt.Sprintf("invalid scope %q: a scope is printable ASCII without spaces, quotes or backslashes; list several as separate strings", sc)
		}
	}
	if sc == "" {
		return "invalid scope \"\": a scope is not empty"
	}
	return ""
}
