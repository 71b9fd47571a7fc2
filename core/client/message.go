package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// message is the part of a JSON-RPC message the transport routes by.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (m *message) isRequest() bool      { return m.Method != "" && present(m.ID) }
func (m *message) isNotification() bool { return m.Method != "" && !present(m.ID) }

// statelessVersion is the protocol version a request declares in its
// _meta when that version is 2026-07-28 or later, which needs no session;
// "" otherwise.
func (m *message) statelessVersion() string {
	if !m.isRequest() {
		return ""
	}
	var p struct {
		Meta struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.Meta.Version < "2026-07-28" {
		return ""
	}
	return p.Meta.Version
}

func present(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// parseMessage reads one JSON-RPC message; batches are not part of the
// protocol versions the gateway speaks.
func parseMessage(msg []byte) (*message, error) {
	t := bytes.TrimSpace(msg)
	if len(t) > 0 && t[0] == '[' {
		return nil, &MessageError{Problem: "JSON-RPC batches are not supported"}
	}
	var m message
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, &MessageError{Problem: err.Error()}
	}
	return &m, nil
}

// sameID: msg is a response (no method) whose id is id.
func sameID(msg []byte, id json.RawMessage) bool {
	var m message
	if json.Unmarshal(msg, &m) != nil || m.Method != "" || !present(m.ID) {
		return false
	}
	return bytes.Equal(compactJSON(m.ID), compactJSON(id))
}

func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// succeeded: resp is a response with a result, not an error.
func succeeded(resp []byte) bool {
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	return json.Unmarshal(resp, &r) == nil && present(r.Result)
}

var (
	// ErrNoResponse: the gateway ended a request's stream without answering
	// (it does so for a cancelled call).
	ErrNoResponse = errors.New("gateway sent no response")
	// ErrConnectionLost: the connection broke while a request was running; the
	// request may or may not have run.
	ErrConnectionLost = errors.New("connection to the gateway lost")
	// ErrNotInitialized: a message was sent before initialize.
	ErrNotInitialized = errors.New("no session: send initialize first")
	// ErrClosed: the connection was closed.
	ErrClosed = errors.New("connection closed")

	errSessionGone = errors.New("gateway does not know the session")
	errDone        = errors.New("response read")
)

// OptionError is an Options value a Conn cannot work with.
type OptionError struct{ Field, Problem string }

func (e *OptionError) Error() string { return fmt.Sprintf("client options: %s %s", e.Field, e.Problem) }

// MessageError is a message that is not JSON-RPC the transport can route.
type MessageError struct{ Problem string }

func (e *MessageError) Error() string { return "invalid JSON-RPC message: " + e.Problem }

// HTTPError is an HTTP answer that is not MCP: a refused token, a wrong URL.
type HTTPError struct {
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	hint := ""
	switch e.Status {
	case 401, 403:
		hint = " (check --token or $TOOLGATE_TOKEN)"
	case 404:
		hint = " (is the URL the gateway's /mcp endpoint?)"
	}
	if e.Body == "" {
		return fmt.Sprintf("gateway answered HTTP %d%s", e.Status, hint)
	}
	return fmt.Sprintf("gateway answered HTTP %d%s: %s", e.Status, hint, e.Body)
}

// httpError makes the error of an HTTP answer that is not the request's
// response. A gateway that refuses a message it could not read (too large,
// not JSON) says why in a JSON-RPC error for no id; its message is the
// useful part, not the JSON around it.
func httpError(status int, body []byte) *HTTPError {
	var rpc struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &rpc) == nil && rpc.Error != nil && rpc.Error.Message != "" {
		return &HTTPError{Status: status, Body: rpc.Error.Message}
	}
	return &HTTPError{Status: status, Body: string(bytes.TrimSpace(body))}
}

// UnreachableError: no connection to the gateway within the reconnect window.
type UnreachableError struct {
	URL string
	Err error
	// Reached: the gateway answered this connection before, so it went
	// away; otherwise it was never reached (not started, or a wrong URL).
	Reached bool
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the gateway at %s: %v", e.URL, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Stateless reports whether msg is a request of protocol 2026-07-28 or
// later, which a gateway serves without a session.
func Stateless(msg []byte) bool {
	m, err := parseMessage(msg)
	return err == nil && m.statelessVersion() != ""
}
