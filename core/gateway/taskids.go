package gateway

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/clip"
)

// A task id a client sees names the plugin that runs the task, the plugin's
// own id for it, the task's createdAt as the plugin reported it when it was
// made, and a nonce drawn for that creation; a MAC covers all four and the
// principal that created the task, keyed like requestState
// (Options.InputStateKey). Any replica with the key routes it without state,
// and a principal other than the creator cannot present it: its MAC does not
// match, so the task does not exist for them.
//
// The plugin's id alone does not name one task for ever: a backend may give
// the same id again, after a restart say, to a task of someone else. The
// creation time, checked against what the plugin reports each time the id
// is used, and the nonce, checked against the tasks this process created
// (taskresolve.go), keep an id on the one task it was issued for.
//
//	tg2.<plugin>.<plugin's task id>.<createdAt>.<nonce>.<MAC>   (each part base64url)
const taskIDPrefix = "tg2."

// taskNonceBytes is the size of the nonce of one creation.
const taskNonceBytes = 12

// taskRef is a task as the gateway routes it.
type taskRef struct {
	Plugin string
	ID     string
}

// taskHandle is one creation of a plugin's task: what an id the gateway
// issued names.
type taskHandle struct {
	taskRef
	// Created is the task's createdAt as its plugin reported it at creation.
	Created string
	Nonce   string
}

// newTaskHandle names a task its plugin has just made.
func newTaskHandle(ref taskRef, created string) (taskHandle, error) {
	var b [taskNonceBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return taskHandle{}, fmt.Errorf("task id nonce: %w", err)
	}
	return taskHandle{taskRef: ref, Created: created, Nonce: string(b[:])}, nil
}

func taskMAC(key []byte, who Principal, h taskHandle) []byte {
	m := hmac.New(sha256.New, key)
	for _, part := range []string{"toolgate task 2", who.Issuer, who.Subject, who.Client, who.token, h.Plugin, h.ID, h.Created, h.Nonce} {
		m.Write([]byte(strconv.Itoa(len(part))))
		m.Write([]byte{0})
		m.Write([]byte(part))
	}
	return m.Sum(nil)[:16]
}

// encodeTaskID is the id the principal who created h is given.
func (s *Server) encodeTaskID(who Principal, h taskHandle) string {
	enc := base64.RawURLEncoding
	parts := []string{h.Plugin, h.ID, h.Created, h.Nonce, string(taskMAC(s.stateKeys[0], who, h))}
	for i, p := range parts {
		parts[i] = enc.EncodeToString([]byte(p))
	}
	return taskIDPrefix + strings.Join(parts, ".")
}

// decodeTaskID reads id for who; ok is false for an id this gateway did not
// issue to who (malformed, altered, signed with another key, or another
// principal's), which callers answer as an unknown task. That the task it
// names is still the one it was issued for is resolveTask's to check.
func (s *Server) decodeTaskID(who Principal, id string) (h taskHandle, ok bool) {
	rest, found := strings.CutPrefix(id, taskIDPrefix)
	if !found {
		return taskHandle{}, false
	}
	// Base64 decoding skips line breaks, even strict: refused here, or one
	// task would have many ids.
	parts := strings.Split(rest, ".")
	if len(parts) != 5 || strings.ContainsAny(rest, "\r\n") {
		return taskHandle{}, false
	}
	// Strict: one id per task, so ids compare as strings (tasks/list).
	enc := base64.RawURLEncoding.Strict()
	var raw [5][]byte
	for i, p := range parts {
		b, err := enc.DecodeString(p)
		if err != nil {
			return taskHandle{}, false
		}
		raw[i] = b
	}
	h = taskHandle{taskRef: taskRef{Plugin: string(raw[0]), ID: string(raw[1])}, Created: string(raw[2]), Nonce: string(raw[3])}
	if !slices.ContainsFunc(s.stateKeys, func(key []byte) bool { return hmac.Equal(raw[4], taskMAC(key, who, h)) }) {
		return taskHandle{}, false
	}
	return h, true
}

// quoteTaskID is id as a refusal quotes it: a huge one quoted in full came
// back several times larger than it was sent (each odd character escaped).
func quoteTaskID(id string) string { return strconv.Quote(clip.Name(id)) }
