package config

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// MinSessionKeyBytes is the shortest session key accepted, decoded: the
// gateway refuses anything shorter too.
const MinSessionKeyBytes = 32

// DefaultSessionMaxAge bounds the life of a sealed session when the file
// sets no session_max_age.
const DefaultSessionMaxAge = 24 * time.Hour

// parseSessionKeys reads session_key: one base64 key, or several separated
// by commas, the first sealing new sessions and all opening them (key
// rotation). "" means no key. The message never quotes the value: it is a
// secret.
func parseSessionKeys(v string) ([][]byte, string) {
	if strings.TrimSpace(v) == "" {
		return nil, ""
	}
	parts := strings.Split(v, ",")
	keys := make([][]byte, 0, len(parts))
	for i, p := range parts {
		which := "session_key"
		if len(parts) > 1 {
			which = fmt.Sprintf("session_key (key %d of %d)", i+1, len(parts))
		}
		k, err := decodeKey(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Sprintf("%s is not base64 (%v); generate a key with `openssl rand -base64 32`", which, err)
		}
		if len(k) < MinSessionKeyBytes {
			return nil, fmt.Sprintf("%s decodes to %d bytes; use at least %d random bytes, e.g. `openssl rand -base64 32`", which, len(k), MinSessionKeyBytes)
		}
		keys = append(keys, k)
	}
	return keys, ""
}

// decodeKey accepts standard and URL-safe base64, padded or not.
func decodeKey(s string) ([]byte, error) {
	if s == "" {
		return nil, fmt.Errorf("empty")
	}
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	return enc.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(s, "="))
}
