package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/internal/clip"
)

// RFC 6750 error codes.
const (
	codeInvalidToken      = "invalid_token"
	codeInsufficientScope = "insufficient_scope"
)

// tokenLeeway absorbs clock skew between the authorization server and the
// gateway in exp, nbf and iat, and no more.
const tokenLeeway = 30 * time.Second

// DefaultMaxTokenLifetime bounds exp - iat of an access token when
// OAuth.MaxTokenLifetime is zero: a token minted to last for years is a
// leaked credential waiting to happen, whatever its signature says.
const DefaultMaxTokenLifetime = 24 * time.Hour

// allowedAlgs are the asymmetric algorithms a token may be signed with. No
// "none", and no HMAC: with HS256 a token "signed" with the public key as the
// secret would pass.
var allowedAlgs = []string{"RS256", "ES256", "EdDSA"}

// tokenError is an access token the gateway refuses; code is the RFC 6750
// error, reason the text the client gets.
type tokenError struct {
	code   string
	reason string
	err    error
	// signed is what a token whose signature verified says about why it
	// was refused, as log key/value pairs; nil when the signature did not
	// verify, since nobody vouches for such a token's contents.
	signed []any
}

func (e *tokenError) Error() string {
	if e.err != nil {
		return fmt.Sprintf("access token refused: %s: %v", e.reason, e.err)
	}
	return "access token refused: " + e.reason
}

func (e *tokenError) Unwrap() error { return e.err }

// verifier checks JWT access tokens: signature by a key of the authorization
// server, issuer, audience, lifetime and scopes.
type verifier struct {
	opts     *OAuth
	keys     *keySource
	parser   *jwt.Parser
	refusals *refusalLog
}

func newVerifier(o *OAuth, log hclog.Logger) *verifier {
	timeout := o.FetchTimeout
	if timeout == 0 {
		timeout = DefaultOAuthFetchTimeout
	}
	return &verifier{
		opts:     o,
		keys:     newKeySource(o.Issuer, o.JWKSURL, timeout, log),
		refusals: newRefusalLog(log.With("issuer", o.Issuer)),
		parser: jwt.NewParser(
			jwt.WithValidMethods(allowedAlgs),
			jwt.WithIssuer(o.Issuer),
			jwt.WithAudience(o.Audience),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(tokenLeeway),
		),
	}
}

// verify returns the credential of a token the gateway accepts, a
// *tokenError for one it refuses, and a *keysUnavailableError when it cannot
// tell because the authorization server's keys cannot be had.
func (v *verifier) verify(ctx context.Context, token string) (credential, error) {
	ctx, cancel := context.WithTimeout(ctx, v.keys.timeout)
	defer cancel()
	var unavailable error
	keyfunc := func(t *jwt.Token) (any, error) {
		kf, err := v.keys.get(ctx)
		if err != nil {
			unavailable = err
			return nil, err
		}
		if _, named := t.Header["kid"]; !named {
			return signingKeys(ctx, kf, t.Method.Alg())
		}
		return kf.KeyfuncCtx(ctx)(t)
	}
	claims := jwt.MapClaims{}
	parsed, err := v.parser.ParseWithClaims(token, claims, keyfunc)
	if keyMayHaveChanged(parsed, err) && v.keys.refetch(ctx) {
		claims = jwt.MapClaims{}
		parsed, err = v.parser.ParseWithClaims(token, claims, keyfunc)
	}
	switch {
	case unavailable != nil:
		return credential{}, unavailable
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		// The parser checks claims only once the signature verified.
		refused := refusal(err)
		refused.signed = v.signedClaims(claims)
		return credential{}, refused
	case err != nil:
		return credential{}, refusal(err)
	}
	if err := v.checkShape(parsed.Header, claims); err != nil {
		err.signed = v.signedClaims(claims)
		return credential{}, err
	}
	if missing := missingScopes(v.opts.Scopes, tokenScopes(claims)); len(missing) > 0 {
		return credential{}, &tokenError{code: codeInsufficientScope, reason: "the access token lacks scope " + strings.Join(missing, " "), signed: v.signedClaims(claims)}
	}
	exp, _ := claims.GetExpirationTime() // required by the parser
	sub, _ := claims["sub"].(string)
	return credential{
		who:     Principal{Issuer: v.opts.Issuer, Subject: sub, Client: tokenClient(claims)},
		expires: exp.Time,
	}, nil
}

// checkShape applies what RFC 9068 asks of a JWT access token beyond its
// signature and registered-claim times: typ at+jwt (so an ID token cannot
// pass as an access token), a subject to bind sessions to, and a lifetime no
// longer than the configured maximum.
func (v *verifier) checkShape(header map[string]any, claims jwt.MapClaims) *tokenError {
	if typ, _ := header["typ"].(string); !v.opts.AllowAnyTyp && !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
		return &tokenError{code: codeInvalidToken, reason: fmt.Sprintf("access token typ is %q, not at+jwt (RFC 9068)", typ)}
	}
	if sub, _ := claims["sub"].(string); sub == "" {
		return &tokenError{code: codeInvalidToken, reason: "access token lacks a sub claim"}
	}
	limit := v.opts.MaxTokenLifetime
	if limit == 0 {
		limit = DefaultMaxTokenLifetime
	}
	exp, _ := claims.GetExpirationTime()
	from := time.Now()
	if iat, _ := claims.GetIssuedAt(); iat != nil {
		from = iat.Time
	}
	if exp.Sub(from) > limit+tokenLeeway {
		return &tokenError{code: codeInvalidToken, reason: fmt.Sprintf("access token lifetime exceeds the maximum of %s", limit)}
	}
	return nil
}

// signedClaims are the claims of a refused token signed by the issuer that
// an operator compares with the configuration and the gateway's clock: a
// trailing slash in iss, an aud the authorization server chose, a skewed
// clock. Never the token itself.
func (v *verifier) signedClaims(claims jwt.MapClaims) []any {
	out := []any{"audience", v.opts.Audience, "now", time.Now().UTC().Format(time.RFC3339)}
	for _, name := range []string{"iss", "aud", "sub", "exp", "nbf", "iat", "scope", "scp"} {
		val, ok := claims[name]
		if !ok {
			continue
		}
		var text string
		switch v := val.(type) {
		case string:
			text = v
		case float64: // a NumericDate
			text = time.Unix(int64(v), 0).UTC().Format(time.RFC3339)
		default: // a list of audiences or scopes
			b, _ := json.Marshal(v)
			text = string(b)
		}
		out = append(out, "token_"+name, clip.Text(text, maxLoggedText))
	}
	return out
}

// tokenClient is the OAuth client a token was issued to: RFC 9068's
// client_id, else OpenID Connect's azp.
func tokenClient(claims jwt.MapClaims) string {
	if c, ok := claims["client_id"].(string); ok && c != "" {
		return c
	}
	c, _ := claims["azp"].(string)
	return c
}

// refusal names what is wrong with a token in words a client developer can
// act on.
func refusal(err error) *tokenError {
	reason := "invalid access token"
	for _, c := range []struct {
		is     error
		reason string
	}{
		{jwt.ErrTokenMalformed, "malformed access token"},
		{jwt.ErrTokenUnverifiable, "unknown signing key"},
		{jwt.ErrTokenSignatureInvalid, "invalid signature or signing algorithm"},
		{jwt.ErrTokenExpired, "access token expired"},
		{jwt.ErrTokenNotValidYet, "access token not valid yet"},
		{jwt.ErrTokenUsedBeforeIssued, "access token issued in the future"},
		{jwt.ErrTokenInvalidIssuer, "access token from another issuer"},
		{jwt.ErrTokenInvalidAudience, "access token for another audience"},
		{jwt.ErrTokenRequiredClaimMissing, "access token lacks a required claim"},
	} {
		if errors.Is(err, c.is) {
			reason = c.reason
			break
		}
	}
	return &tokenError{code: codeInvalidToken, reason: reason, err: err}
}

// tokenScopes reads OAuth's space-separated "scope" and the "scp" some
// servers use instead, as a string or a list.
func tokenScopes(claims jwt.MapClaims) map[string]bool {
	out := map[string]bool{}
	for _, name := range []string{"scope", "scp"} {
		switch v := claims[name].(type) {
		case string:
			for _, s := range strings.Fields(v) {
				out[s] = true
			}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					out[s] = true
				}
			}
		}
	}
	return out
}

func missingScopes(required []string, have map[string]bool) []string {
	var missing []string
	for _, s := range required {
		if !have[s] {
			missing = append(missing, s)
		}
	}
	return missing
}
