package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Principal is who a request is authenticated as. It is a small comparable
// value so that a session can record the principal that opened it and refuse
// everyone else, and so that it can later travel sealed inside a session id.
// The zero Principal is the unauthenticated caller: the stdio peer, or an HTTP
// client of a gateway that requires no token.
type Principal struct {
	// Issuer is the OAuth issuer, or "token" for a static bearer token.
	Issuer string
	// Subject is the token's sub, or a static token's position in
	// Options.Tokens ("0", "1", …): never the token itself.
	Subject string
	// Client is the OAuth client the token was issued to (client_id, else
	// azp); "" for static tokens.
	Client string
	// token tells static tokens apart by their value, as Subject does not:
	// a token's position moves when a token before it is revoked or the
	// list is ordered differently on another replica, and a session,
	// requestState or task of one token must not pass to the next. It is a
	// fingerprint, never the token, and leaves the process only encrypted
	// (in a sealed id) or under a keyed MAC (requestState, task ids).
	token string
}

// staticIssuer marks a Principal that presented one of Options.Tokens.
const staticIssuer = "token"

func staticPrincipal(index int, print string) Principal {
	return Principal{Issuer: staticIssuer, Subject: strconv.Itoa(index), token: print}
}

// tokenPrint is the fingerprint of a static token that its Principal keeps.
func tokenPrint(token string) string {
	sum := sha256.Sum256([]byte("toolgate static token\x00" + token))
	return hex.EncodeToString(sum[:16])
}

// credential is what the guard learned of a request's bearer: who it is, and
// until when the token is good (zero for tokens that do not expire).
type credential struct {
	who     Principal
	expires time.Time
}

type credentialKey struct{}

func withCredential(ctx context.Context, c credential) context.Context {
	return context.WithValue(ctx, credentialKey{}, c)
}

func credentialFrom(ctx context.Context) credential {
	c, _ := ctx.Value(credentialKey{}).(credential)
	return c
}

// Caller identifies who runs a call, for audit lines: the principal, and the
// MCP session the call came on ("" when there is none).
type Caller struct {
	Principal
	Session string
}

type callerKey struct{}

func withCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller of the tool call whose context ctx is; ok is
// false outside a call served by this package.
func CallerFrom(ctx context.Context) (c Caller, ok bool) {
	c, ok = ctx.Value(callerKey{}).(Caller)
	return c, ok
}
