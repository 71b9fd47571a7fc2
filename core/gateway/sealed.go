package gateway

import (
	"context"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/crypto/chacha20poly1305"
)

// A gateway given Options.SessionKeys keeps nothing about a legacy session
// that another replica would need: the session id itself carries the
// session's state, encrypted and authenticated with a key every replica
// holds. A replica that never saw the initialize opens the id, checks it, and
// rebuilds the session on first sight. Without keys, ids are random and the
// session lives only in the process that issued it.
//
// An id is issued once and never changes, so it carries what is known at
// initialize: the protocol version, the client's capabilities and identity,
// the principal, and when it was issued. What changes later (the log level,
// resource subscriptions) stays with the replica that was told.

// MinSessionKey is the shortest session key accepted, in bytes.
const MinSessionKey = 32

// DefaultSessionMaxAge bounds the life of a sealed session when
// Options.SessionMaxAge is zero: a sealed id, even deleted, is good on a
// replica that never saw it until then.
const DefaultSessionMaxAge = 24 * time.Hour

// sealedPrefix starts every sealed id and names its layout, so an id of
// another kind (a random one, or a future layout) is told apart at once.
const sealedPrefix = "tg1."

// maxSealedState bounds the JSON sealed into an id: ids travel in a header on
// every request. Client info is left out of an id that would be larger; a
// client whose capabilities alone are larger cannot open a sealed session.
const maxSealedState = 4096

// maxSealedID is the longest id seal makes: longer ones are refused before
// any decoding or decryption.
var maxSealedID = len(sealedPrefix) + base64.RawURLEncoding.EncodedLen(
	chacha20poly1305.NonceSizeX+maxSealedState+chacha20poly1305.Overhead)

// HKDF labels: one key is never used for two purposes.
const (
	sessionKeyLabel    = "toolgate session id v1"
	inputStateKeyLabel = "toolgate requestState v1"
)

// sessionState is what a sealed id carries.
type sessionState struct {
	// Handle names the session in logs and audit lines, the same on every
	// replica; the id itself is never logged.
	Handle  string                 `json:"h"`
	Version string                 `json:"pv"`
	Caps    mcp.ClientCapabilities `json:"caps"`
	Info    *mcp.Implementation    `json:"info,omitempty"`
	Issuer  string                 `json:"iss,omitempty"`
	Subject string                 `json:"sub,omitempty"`
	Client  string                 `json:"cli,omitempty"`
	Token   string                 `json:"tok,omitempty"`
	// Issued and Expires are unix seconds.
	Issued  int64 `json:"iat"`
	Expires int64 `json:"exp"`
}

func (st *sessionState) principal() Principal {
	return Principal{Issuer: st.Issuer, Subject: st.Subject, Client: st.Client, token: st.Token}
}

// sealer seals session ids with the first of its keys and opens them with
// any, so a key can be rotated: add the new key first, keep the old one
// until the sessions it sealed have expired.
type sealer struct {
	aeads []cipher.AEAD
}

// deriveKey makes the key of one purpose from a configured key.
func deriveKey(secret []byte, label string) ([]byte, error) {
	return hkdf.Key(sha256.New, secret, nil, label, 32)
}

func newSealer(keys [][]byte) (*sealer, error) {
	s := &sealer{}
	for i, k := range keys {
		sub, err := deriveKey(k, sessionKeyLabel)
		if err != nil {
			return nil, fmt.Errorf("session key %d: %w", i, err)
		}
		aead, err := chacha20poly1305.NewX(sub)
		if err != nil {
			return nil, fmt.Errorf("session key %d: %w", i, err)
		}
		s.aeads = append(s.aeads, aead)
	}
	return s, nil
}

func checkSessionKeys(keys [][]byte, maxAge time.Duration) error {
	for i, k := range keys {
		if len(k) < MinSessionKey {
			return &OptionError{Field: fmt.Sprintf("SessionKeys[%d]", i),
				Problem: fmt.Sprintf("is %d bytes; use at least %d random bytes", len(k), MinSessionKey)}
		}
	}
	if maxAge < 0 {
		return &OptionError{Field: "SessionMaxAge", Problem: "is negative"}
	}
	return nil
}

// errCapsTooLarge refuses an initialize whose client capabilities a sealed
// id cannot carry: the client's to fix, not the gateway's.
var errCapsTooLarge = errors.New("the client's capabilities are too large for a session id")

// seal encrypts st into an id: the prefix, then base64url of a random nonce
// and the ciphertext. The prefix is authenticated too.
func (s *sealer) seal(st sessionState) (string, error) {
	b, err := json.Marshal(st)
	if err == nil && len(b) > maxSealedState && st.Info != nil {
		st.Info = nil
		b, err = json.Marshal(st)
	}
	if err != nil {
		return "", fmt.Errorf("seal session: %w", err)
	}
	if len(b) > maxSealedState {
		return "", fmt.Errorf("seal session: %w: %d bytes, more than the %d it can carry", errCapsTooLarge, len(b), maxSealedState)
	}
	aead := s.aeads[0]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(b)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal session: %w", err)
	}
	out := aead.Seal(nonce, nonce, b, []byte(sealedPrefix))
	return sealedPrefix + base64.RawURLEncoding.EncodeToString(out), nil
}

// errNotSealed marks an id that no session key of this gateway opens:
// forged, altered, sealed with a key this gateway does not hold, or not a
// sealed id at all. Saying so tells nothing about any session.
var errNotSealed = errors.New("not a session id sealed with this gateway's keys")

// errSessionExpired marks a sealed id past its expiry.
var errSessionExpired = errors.New("session expired")

// unseal checks that id was sealed with one of the keys and returns what it
// carries, expired or not: whether to say it expired depends on who asks.
func (s *sealer) unseal(id string) (*sessionState, error) {
	rest, ok := strings.CutPrefix(id, sealedPrefix)
	if !ok || len(id) > maxSealedID || strings.ContainsAny(rest, "\r\n") {
		return nil, errNotSealed
	}
	// Strict, and no line breaks (which even strict decoding skips): one
	// session has one id, so deleting it leaves no other spelling served.
	raw, err := base64.RawURLEncoding.Strict().DecodeString(rest)
	if err != nil || len(raw) < chacha20poly1305.NonceSizeX {
		return nil, errNotSealed
	}
	nonce, box := raw[:chacha20poly1305.NonceSizeX], raw[chacha20poly1305.NonceSizeX:]
	for _, aead := range s.aeads {
		b, err := aead.Open(nil, nonce, box, []byte(sealedPrefix))
		if err != nil {
			continue
		}
		var st sessionState
		if err := json.Unmarshal(b, &st); err != nil || st.Handle == "" {
			return nil, errNotSealed
		}
		return &st, nil
	}
	return nil, errNotSealed
}

// end is when the session st describes ends: at its sealed expiry, or
// maxAge after it was issued if that comes first, so that lowering
// session_max_age shortens the sessions sealed before too.
func (st *sessionState) end(maxAge time.Duration) time.Time {
	end := time.Unix(st.Expires, 0)
	if capped := time.Unix(st.Issued, 0).Add(maxAge); capped.Before(end) {
		return capped
	}
	return end
}

// expiry is errSessionExpired, with when, once st has ended.
func (st *sessionState) expiry(now time.Time, maxAge time.Duration) error {
	if end := st.end(maxAge); !now.Before(end) {
		return fmt.Errorf("%w at %s", errSessionExpired, end.UTC().Format(time.RFC3339))
	}
	return nil
}

// newHandle is a random name for a session.
func newHandle() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func (s *Server) sessionMaxAge() time.Duration {
	if s.opts.SessionMaxAge > 0 {
		return s.opts.SessionMaxAge
	}
	return DefaultSessionMaxAge
}

// initializeParams is what initialize tells about its client.
type initializeParams struct {
	ProtocolVersion string                 `json:"protocolVersion"`
	Capabilities    mcp.ClientCapabilities `json:"capabilities"`
	ClientInfo      mcp.Implementation     `json:"clientInfo"`
}

// sealedState is the state of a session opened by the initialize env, owned
// by who.
func (s *Server) sealedState(env *envelope, who Principal, now time.Time) (sessionState, error) {
	var p initializeParams
	// A malformed initialize is refused by mcp-go with a better message;
	// the session it would have opened is dropped then.
	_ = json.Unmarshal(env.Params, &p)
	h, err := newHandle()
	if err != nil {
		return sessionState{}, err
	}
	st := sessionState{
		Handle: h, Version: s.legacyVersion(mcp.NegotiateLegacyVersion(p.ProtocolVersion)),
		Caps: p.Capabilities, Issuer: who.Issuer, Subject: who.Subject, Client: who.Client, Token: who.token,
		Issued: now.Unix(), Expires: now.Add(s.sessionMaxAge()).Unix(),
	}
	if p.ClientInfo.Name != "" || p.ClientInfo.Version != "" {
		st.Info = &p.ClientInfo
	}
	return st, nil
}

// newSealedSession makes and registers the session an initialize opens,
// with its state sealed into its id.
func (s *Server) newSealedSession(ctx context.Context, env *envelope) (*session, error) {
	st, err := s.sealedState(env, credentialFrom(ctx).who, time.Now())
	if err != nil {
		return nil, err
	}
	id, err := s.sealer.seal(st)
	if err != nil {
		return nil, err
	}
	se, err := s.sessionFromState(id, &st)
	if err != nil {
		return nil, err
	}
	return se, s.register(ctx, se)
}

// sessionFromState makes the session a sealed id describes. It is named by
// its handle wherever the session is logged or audited.
func (s *Server) sessionFromState(id string, st *sessionState) (*session, error) {
	se, err := s.makeSession(st.principal(), notesBuffer)
	if err != nil {
		return nil, err
	}
	se.id, se.conn = id, st.Handle
	se.expires = st.end(s.sessionMaxAge())
	se.version = st.Version
	se.clientCaps = st.Caps
	if st.Info != nil {
		se.clientInfo = *st.Info
	}
	return se, nil
}

// expired reports whether a sealed session is past its expiry.
func (se *session) expired(now time.Time) bool {
	return !se.expires.IsZero() && !now.Before(se.expires)
}
