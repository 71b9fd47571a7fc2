package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/internal/clip"
)

// envelope is the part of an incoming JSON-RPC message that decides how a
// transport handles it. parseEnvelope checks it, so a transport only sees
// requests with a string or integer id, notifications and responses.
type envelope struct {
	// JSONRPC is the protocol version the message names, "2.0" or nothing
	// valid.
	JSONRPC *string `json:"jsonrpc"`
	// ID is the id exactly as the client wrote it; answers carry these bytes.
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	// Result and Error mark a response, and carry a client's answer to a
	// request this gateway sent it.
	Result given `json:"result"`
	Error  given `json:"error"`

	// params is what the transports and dispatch need of a request's params,
	// decoded once by parseEnvelope so that none of them decodes it again.
	params requestParams
}

// given records that a member was present, null included, and its raw value.
type given struct {
	set bool
	raw json.RawMessage
}

func (g *given) UnmarshalJSON(b []byte) error {
	g.set = true
	g.raw = append(json.RawMessage(nil), b...)
	return nil
}

// isRequest: a method and an id.
func (e *envelope) isRequest() bool { return e.Method != "" && present(e.ID) }

// isNotification: a method and no id. A notification's null id is tolerated,
// as mcp-go does; a request's is refused by parseEnvelope.
func (e *envelope) isNotification() bool { return e.Method != "" && !present(e.ID) }

// requestParams is what the transports need of a request's params: the
// protocol version a 2026-07-28 request declares in _meta, and for tools/call
// the name, progress token and the answers of a multi round-trip retry.
type requestParams struct {
	Name string `json:"name"`
	Meta struct {
		ProgressToken   json.RawMessage `json:"progressToken"`
		ProtocolVersion string          `json:"io.modelcontextprotocol/protocolVersion"`
		LogLevel        string          `json:"io.modelcontextprotocol/logLevel"`
	} `json:"_meta"`
	Arguments      json.RawMessage            `json:"arguments"`
	RequestState   string                     `json:"requestState"`
	InputResponses map[string]json.RawMessage `json:"inputResponses"`
	// Task asks for a tools/call to run as an MCP task (tasks.go).
	Task json.RawMessage `json:"task"`
	// URI and Ref name the resource or prompt of resources/read,
	// resources/subscribe and completion/complete (native.go).
	URI string `json:"uri"`
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
}

// callParams is a request's params as far as the transports need them; zero
// for notifications, responses and params that do not decode.
func (e *envelope) callParams() requestParams { return e.params }

// modern reports whether the message declares protocol 2026-07-28 or later
// in its _meta: such a request carries everything about its client itself
// and belongs to no session.
func (e *envelope) modern() bool { return mcp.IsModernProtocol(e.params.Meta.ProtocolVersion) }

// errBatch marks a JSON array: batches left MCP in 2025-06-18 and no client of
// the versions served here sends them.
var errBatch = errors.New("JSON-RPC batches are not supported")

// errNotUTF8 marks bytes that are not UTF-8, which JSON text must be (RFC 8259
// section 8.1). Taken as they are, a malformed id would be echoed back and
// make the answer unreadable to the client too.
var errNotUTF8 = errors.New("the message is not valid UTF-8, which JSON text must be")

// errBOM marks a message that starts with a UTF-8 byte order mark, which
// JSON text sent over a network must not (RFC 8259 section 8.1); encoding/json
// would report its first byte as the character 'ï'.
var errBOM = errors.New("the message starts with a byte order mark (EF BB BF), which JSON text must not; send it without one")

// invalidRequestError is JSON that is no request, notification or response
// JSON-RPC 2.0 and MCP allow (code -32600).
type invalidRequestError struct {
	// ID is what the answer carries: the message's own id when it is a valid
	// one, else nothing (written as null).
	ID      json.RawMessage
	Problem string
	// Params marks a request whose params are not an object: -32602, as
	// JSON-RPC answers invalid parameters.
	Params bool
}

func (e *invalidRequestError) Error() string {
	if e.Params {
		return "invalid params: " + e.Problem
	}
	return "invalid request: " + e.Problem
}

// parseEnvelope reads one message. It fails with errBatch, errBOM,
// errNotUTF8, a JSON syntax error, or an *invalidRequestError.
func parseEnvelope(msg []byte) (*envelope, error) {
	t := bytes.TrimSpace(msg)
	if len(t) > 0 && t[0] == '[' {
		return nil, errBatch
	}
	if bytes.HasPrefix(t, []byte("\xef\xbb\xbf")) {
		return nil, errBOM
	}
	if !utf8.Valid(t) {
		return nil, errNotUTF8
	}
	var env envelope
	if err := json.Unmarshal(t, &env); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return nil, err
		}
		if te.Field == "" {
			return nil, &invalidRequestError{Problem: "a message must be a JSON object, not " + jsonValueName(te.Value)}
		}
		return nil, env.refuse(fmt.Sprintf("%q must be a %s, not %s", te.Field, te.Type.Kind(), jsonValueName(te.Value)))
	}
	if err := env.check(); err != nil {
		return nil, err
	}
	if env.isRequest() && present(env.Params) && env.Params[0] != '{' {
		// JSON-RPC allows by-position params; MCP's are always named, and
		// mcp-go would report the array in terms of its Go types.
		return nil, &invalidRequestError{ID: env.ID, Params: true,
			Problem: "params must be an object, not " + jsonLiteralName(env.Params)}
	}
	if env.isRequest() && present(env.Params) {
		_ = json.Unmarshal(env.Params, &env.params) // a malformed params is mcp-go's to report
		if p := progressTokenProblem(env.params.Meta.ProgressToken); p != "" {
			return nil, &invalidRequestError{ID: env.ID, Params: true, Problem: p}
		}
		if !present(env.params.Meta.ProgressToken) {
			env.params.Meta.ProgressToken = nil // a null token asks for no progress
		}
	}
	return &env, nil
}

// maxProgressToken bounds a progress token: every progress notification of
// the request repeats it, so a token of a megabyte made a call of a hundred
// steps send a hundred megabytes. Real tokens are a number or a short id.
const maxProgressToken = 256

// progressTokenProblem says why raw cannot be a progress token, or "" when
// it can (or is absent: null is taken as no token). MCP's tokens are
// strings and integers, like ids.
func progressTokenProblem(raw json.RawMessage) string {
	switch {
	case !present(raw):
		return ""
	case len(raw) > maxProgressToken:
		return fmt.Sprintf("_meta.progressToken is %d bytes long; at most %d", len(raw), maxProgressToken)
	case raw[0] == '"' || isInteger(raw):
		return ""
	}
	return "_meta.progressToken must be a string or an integer, not " + jsonLiteralName(raw)
}

// check refuses, before any handler sees it, a message mcp-go would drop
// without an answer (the client then waits forever) or answer with an id
// other than the one sent.
func (e *envelope) check() error {
	switch {
	case e.Method == "" && (e.Result.set || e.Error.set):
		return nil // a client's answer to a server request
	case e.Method == "":
		return e.refuse("no method: a request or notification needs one, a response a result or an error")
	case e.Result.set || e.Error.set:
		return e.refuse("both a method and a result or error: a message is a request or a response")
	case e.JSONRPC == nil:
		return e.refuse(`no "jsonrpc": a message must say "jsonrpc": "2.0"`)
	case *e.JSONRPC != "2.0":
		return e.refuse(fmt.Sprintf(`"jsonrpc" must be "2.0", not %q`, clip.Name(*e.JSONRPC)))
	case len(e.ID) == 0:
		return nil // a notification
	case !present(e.ID) && strings.HasPrefix(e.Method, "notifications/"):
		return nil // a notification with a null id, tolerated as mcp-go does
	}
	if p := idProblem(e.ID); p != "" {
		return &invalidRequestError{Problem: p}
	}
	if strings.HasPrefix(e.Method, "notifications/") {
		// Served, notifications/cancelled would be taken as a notification
		// and never answered, and the client would wait for ever.
		return &invalidRequestError{ID: e.ID, Problem: fmt.Sprintf(
			"%s is a notification and must have no id; a message with an id is a request, which this method never is",
			clip.Name(e.Method))}
	}
	return nil
}

// refuse answers with the message's id when that id is a valid one, so the
// client waiting on it hears why.
func (e *envelope) refuse(problem string) *invalidRequestError {
	err := &invalidRequestError{Problem: problem}
	if present(e.ID) && idProblem(e.ID) == "" {
		err.ID = e.ID
	}
	return err
}

// idProblem says why raw cannot be a request id, or "" when it can. MCP
// allows strings and integers. mcp-go decodes an integer into a float64, so
// one beyond float64's range would be a parse error there; within it, the
// precision lost is restored by answering with raw.
func idProblem(raw json.RawMessage) string {
	switch {
	case len(raw) > 0 && raw[0] == '"':
		return ""
	case isInteger(raw):
		if _, err := strconv.ParseFloat(string(raw), 64); err != nil {
			return fmt.Sprintf("id is out of range: an integer of %d digits", len(strings.TrimPrefix(string(raw), "-")))
		}
		return ""
	}
	return "id must be a string or an integer, not " + jsonLiteralName(raw)
}

// isInteger: JSON number syntax without fraction or exponent.
func isInteger(raw []byte) bool {
	digits := bytes.TrimPrefix(raw, []byte("-"))
	if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// jsonLiteralName names a JSON value for an error message: its kind for
// objects and arrays, else the value itself, shortened.
func jsonLiteralName(raw []byte) string {
	switch {
	case len(raw) == 0:
		return "empty"
	case raw[0] == '{':
		return "an object"
	case raw[0] == '[':
		return "an array"
	case len(raw) > 32:
		return string(raw[:32]) + "…"
	}
	return string(raw)
}

// jsonValueName turns encoding/json's name of a value ("number", "number
// 1.5", "object", "bool") into words for an error message.
func jsonValueName(v string) string {
	kind, literal, _ := strings.Cut(v, " ")
	switch {
	case literal != "":
		return jsonLiteralName([]byte(literal))
	case kind == "object" || kind == "array":
		return "an " + kind
	case kind == "bool":
		return "a boolean"
	}
	return "a " + kind
}
