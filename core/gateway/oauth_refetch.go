package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
)

// keySet is the key set the gateway holds: keyfunc reads held, which its
// own refreshes and refetch both replace.
type keySet struct {
	kf   keyfunc.Keyfunc
	held jwkset.Storage
	url  string
}

// keyMayHaveChanged tells a token whose signature an allowed algorithm
// could not verify with the keys held: the authorization server may have
// replaced a key under a kid the gateway knows, or a key tokens without a
// kid are signed with, or begun to publish a key for the algorithm of
// tokens without a kid; keyfunc's refetch on an unknown kid sees none of
// these.
func keyMayHaveChanged(parsed *jwt.Token, err error) bool {
	return (errors.Is(err, jwt.ErrTokenSignatureInvalid) || errors.Is(err, errNoKeyForAlg)) &&
		parsed != nil && parsed.Method != nil && slices.Contains(allowedAlgs, parsed.Method.Alg())
}

// refetch replaces the keys held with the authorization server's current
// set, at most once per keysRefetchEvery (the limit an unknown kid shares),
// and reports whether it did: a flood of forged signatures costs the
// authorization server no more than a flood of made-up kids.
func (k *keySource) refetch(ctx context.Context) bool {
	ks := k.loaded.Load()
	if ks == nil || !k.refetchLimit.Allow() {
		return false
	}
	keys, err := k.readKeySet(ctx, ks.url)
	if err == nil {
		err = ks.held.KeyReplaceAll(ctx, keys)
	}
	if err != nil {
		k.log.Error("refetch of the authorization server's signing keys failed; keeping the keys fetched before", "url", redactedURL(ks.url), "error", err)
		return false
	}
	k.log.Info("refetched the authorization server's signing keys: a token's signature did not verify with those held", "url", redactedURL(ks.url), "keys", len(keys))
	return true
}

// readKeySet fetches the key set at u and keeps the keys jwkset supports,
// as keyfunc's own refresh does; a set without one is an error, so the
// keys held are never replaced by nothing.
func (k *keySource) readKeySet(ctx context.Context, u string) ([]jwkset.JWK, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var set jwkset.JWKSMarshal
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		return nil, fmt.Errorf("decode key set: %w", err)
	}
	var keys []jwkset.JWK
	for _, m := range set.Keys {
		// Read as keyfunc's own refresh reads a set; a private key a set
		// should not hold is used by its public half only.
		jwk, err := jwkset.NewJWKFromMarshal(m, jwkset.JWKMarshalOptions{Private: true}, jwkset.JWKValidateOptions{})
		switch {
		case errors.Is(err, jwkset.ErrUnsupportedKey):
			continue
		case err != nil:
			return nil, fmt.Errorf("key %q: %w", m.KID, err)
		}
		keys = append(keys, jwk)
	}
	if len(keys) == 0 {
		return nil, errors.New("the key set holds no usable key")
	}
	return keys, nil
}
