package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/clip"
)

// A task id a client sees names the plugin that runs the task, the plugin's
// own id for it, and a MAC over both and the principal that created it,
// keyed like requestState (Options.InputStateKey). Any replica with the key
// routes it without state, and a principal other than the creator cannot
// present it: its MAC does not match, so the task does not exist for them.
//
//	tg1.<base64url plugin>.<base64url plugin's task id>.<base64url MAC>
const taskIDPrefix = "tg1."

// taskRef is a task as the gateway routes it.
type taskRef struct {
	Plugin string
	ID     string
}

func taskMAC(key []byte, who Principal, ref taskRef) []byte {
	m := hmac.New(sha256.New, key)
	for _, part := range []string{"toolgate task", who.Issuer, who.Subject, who.Client, who.token, ref.Plugin, ref.ID} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return m.Sum(nil)[:16]
}

// encodeTaskID is the id the principal who created ref is given.
func (s *Server) encodeTaskID(who Principal, ref taskRef) string {
	enc := base64.RawURLEncoding
	return taskIDPrefix + enc.EncodeToString([]byte(ref.Plugin)) + "." +
		enc.EncodeToString([]byte(ref.ID)) + "." + enc.EncodeToString(taskMAC(s.stateKeys[0], who, ref))
}

// decodeTaskID routes id for who; ok is false for an id this gateway did
// not issue to who (malformed, altered, signed with another key, or another
// principal's), which callers answer as an unknown task.
func (s *Server) decodeTaskID(who Principal, id string) (ref taskRef, ok bool) {
	rest, found := strings.CutPrefix(id, taskIDPrefix)
	if !found {
		return taskRef{}, false
	}
	// Base64 decoding skips line breaks, even strict: refused here, or one
	// task would have many ids.
	parts := strings.Split(rest, ".")
	if len(parts) != 3 || strings.ContainsAny(rest, "\r\n") {
		return taskRef{}, false
	}
	// Strict: one id per task, so ids compare as strings (tasks/list).
	enc := base64.RawURLEncoding.Strict()
	plugin, err1 := enc.DecodeString(parts[0])
	backendID, err2 := enc.DecodeString(parts[1])
	mac, err3 := enc.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return taskRef{}, false
	}
	ref = taskRef{Plugin: string(plugin), ID: string(backendID)}
	if !slices.ContainsFunc(s.stateKeys, func(key []byte) bool { return hmac.Equal(mac, taskMAC(key, who, ref)) }) {
		return taskRef{}, false
	}
	return ref, true
}

// quoteTaskID is id as a refusal quotes it: a huge one quoted in full came
// back several times larger than it was sent (each odd character escaped).
func quoteTaskID(id string) string { return strconv.Quote(clip.Name(id)) }
