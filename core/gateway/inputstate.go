package gateway

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// On 2026-07-28 a server cannot send a request to its client in the middle
// of a call. A backend that asks (sampling, elicitation, roots) makes the
// gateway answer the call with an input-required result instead: the
// requests the client must answer and a requestState. The client retries the
// call with its answers and the state; the gateway runs the call again from
// the start and answers the backend's requests, asked again in the same way,
// from those answers (matched by a key made of the method and params). The
// state is signed and carries every answer given so far, so the retry may
// reach any replica that holds the same InputStateKey; nothing is kept in
// the process between the two, except the id of a state whose accepted
// elicitation ran its call (spentstates.go).

// DefaultInputStateTTL is how long a requestState stays good when
// Options.InputStateTTL is zero.
const DefaultInputStateTTL = 10 * time.Minute

// minInputStateKey is the shortest InputStateKey accepted: the HMAC-SHA256
// key length.
const minInputStateKey = 32

// inputStateVersion changes with the payload's layout. 2 added ID.
const inputStateVersion = 2

// inputState is what a requestState carries, signed.
type inputState struct {
	V int `json:"v"`
	// ID is random, new at each seal: a state that ran its call with an
	// accepted elicitation is refused by this id from then on.
	ID string `json:"id"`
	// Tool, Args and Who bind the state to one call of one principal: Args
	// is argsDigest of the arguments, Who principalDigest of the principal
	// under the key that signs the state.
	Tool string `json:"tool"`
	Args string `json:"args"`
	Who  string `json:"who"`
	// Expires is a unix time in seconds.
	Expires int64 `json:"exp"`
	// Answers are the client's answers so far, by input request key.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	// Asked are the keys of the requests the client is to answer now.
	Asked []string `json:"asked"`

	// id is ID decoded, by openState.
	id stateID
}

// decodeID sets id from ID, and reports whether ID was one.
func (st *inputState) decodeID() bool {
	if len(st.ID) != base64.RawURLEncoding.EncodedLen(len(st.id)) {
		return false
	}
	n, err := base64.RawURLEncoding.Decode(st.id[:], []byte(st.ID))
	return err == nil && n == len(st.id)
}

func checkInputState(key []byte, previous [][]byte, ttl time.Duration) error {
	if len(key) > 0 && len(key) < minInputStateKey {
		return &OptionError{Field: "InputStateKey", Problem: fmt.Sprintf("is %d bytes; use at least %d random bytes", len(key), minInputStateKey)}
	}
	for i, k := range previous {
		if len(k) < minInputStateKey {
			return &OptionError{Field: fmt.Sprintf("PreviousInputStateKeys[%d]", i), Problem: fmt.Sprintf("is %d bytes; use at least %d random bytes", len(k), minInputStateKey)}
		}
	}
	if ttl < 0 {
		return &OptionError{Field: "InputStateTTL", Problem: "is negative"}
	}
	return nil
}

// newStateKey is the key of a gateway without Options.InputStateKey.
func newStateKey() ([]byte, error) {
	key := make([]byte, minInputStateKey)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("input state key: %w", err)
	}
	return key, nil
}

func (s *Server) stateTTL() time.Duration {
	if s.opts.InputStateTTL > 0 {
		return s.opts.InputStateTTL
	}
	return DefaultInputStateTTL
}

// sealState encodes st, bound to who, as base64url(JSON) "." base64url(HMAC).
func (s *Server) sealState(st inputState, who Principal) (string, error) {
	var id stateID
	if _, err := rand.Read(id[:]); err != nil {
		return "", fmt.Errorf("requestState id: %w", err)
	}
	return s.sealStateAs(st, who, id)
}

// sealStateAs seals st under the id given: sealState's, or a fixed one
// where a test needs the same state sealed in several processes.
func (s *Server) sealStateAs(st inputState, who Principal, id stateID) (string, error) {
	st.V, st.ID = inputStateVersion, base64.RawURLEncoding.EncodeToString(id[:])
	st.Who = principalDigest(s.stateKeys[0], who)
	b, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encode requestState: %w", err)
	}
	payload := base64.RawURLEncoding.EncodeToString(b)
	return payload + "." + base64.RawURLEncoding.EncodeToString(stateMAC(s.stateKeys[0], payload)), nil
}

func stateMAC(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("toolgate requestState\x00"))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// errBadState is wrapped by every refusal of a requestState.
var errBadState = errors.New("requestState refused")

// openState checks a requestState sent back with a retry of tool with args
// by who, and returns what it carries.
func (s *Server) openState(state, tool string, args json.RawMessage, who Principal, now time.Time) (*inputState, error) {
	payload, sig, ok := strings.Cut(state, ".")
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	// Re-encoding refuses the spellings the decoder forgives (line breaks).
	signed := func(key []byte) bool { return hmac.Equal(mac, stateMAC(key, payload)) }
	key := slices.IndexFunc(s.stateKeys, signed)
	if !ok || err != nil || base64.RawURLEncoding.EncodeToString(mac) != sig || key < 0 {
		return nil, fmt.Errorf("%w: its signature matches no key of this gateway: it was altered, or signed with a session key since rotated out "+
			"or that not every replica holds; send back the requestState of the last input-required result unchanged, or call the tool again without it", errBadState)
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("%w: undecodable payload: %v", errBadState, err)
	}
	var st inputState
	if err := json.Unmarshal(b, &st); err != nil || st.V != inputStateVersion || !st.decodeID() {
		return nil, fmt.Errorf("%w: it was written by another version of the gateway; call the tool again without it", errBadState)
	}
	switch {
	case st.Tool != tool:
		return nil, fmt.Errorf("%w: it was issued for tool %q, not %q", errBadState, st.Tool, tool)
	case st.Args != argsDigest(args):
		return nil, fmt.Errorf("%w: it was issued for other arguments of %q: retry with the arguments of the first call", errBadState, tool)
	case st.Who != principalDigest(s.stateKeys[key], who):
		return nil, fmt.Errorf("%w: it was issued to another principal", errBadState)
	case now.Unix() > st.Expires:
		return nil, fmt.Errorf("%w: it expired at %s; call the tool again without it", errBadState, time.Unix(st.Expires, 0).UTC().Format(time.RFC3339))
	}
	return &st, nil
}

// argsDigest identifies arguments whatever their key order or spacing.
func argsDigest(args json.RawMessage) string {
	return digest(canonicalJSON(args))
}

// principalDigest names p in a requestState, which travels readable: it is
// keyed, so a static token's fingerprint cannot be tried against it.
func principalDigest(key []byte, p Principal) string {
	m := hmac.New(sha256.New, key)
	for _, part := range []string{"toolgate principal", p.Issuer, p.Subject, p.Client, p.token} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil)[:16])
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// inputKey names one request of a backend the same way on every run of a
// call: its method and its params, canonical.
func inputKey(method string, params json.RawMessage) string {
	return "in-" + digest(append([]byte(method+"\x00"), canonicalJSON(params)...))
}

// canonicalJSON re-encodes raw with sorted keys and no spacing; numbers keep
// their digits. Absent, null and invalid JSON are kept as they are.
func canonicalJSON(raw json.RawMessage) []byte {
	if !present(raw) {
		return []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// inputRequired is the input-required result of a 2026-07-28 call whose
// backend asked what the client has not answered yet, or nil.
func (s *Server) inputRequired(rs *requestScope, tool string, args json.RawMessage, who Principal, p *inputPeer) *mcp.CallToolResult {
	asked := p.pending()
	if len(asked) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(asked))
	state, err := s.sealState(inputState{
		Tool: tool, Args: argsDigest(args),
		Expires: time.Now().Add(s.stateTTL()).Unix(),
		Answers: p.answers, Asked: keys,
	}, who)
	if err != nil {
		return errorResult(fmt.Sprintf("tool %q needs input from the client, but %v", tool, err))
	}
	rs.inputRequests = asked
	return &mcp.CallToolResult{
		Result:               mcp.Result{ResultType: mcp.ResultTypeInputRequired},
		MultiRoundTripResult: mcp.MultiRoundTripResult{RequestState: state},
	}
}

// resume checks the requestState and inputResponses of a retried
// 2026-07-28 tools/call and keeps the answers for its peer; it returns the
// answer to refuse the call with, or nil. A state whose answers accept an
// elicitation runs its call once: resume records it as spent.
func (s *Server) resume(se *session, env *envelope, rs *requestScope) *rpcResponse {
	p := env.params
	if p.RequestState == "" && len(p.InputResponses) == 0 {
		return nil
	}
	refuse := func(msg string) *rpcResponse {
		r := errorResponse(env.ID, mcp.INVALID_PARAMS, msg)
		return &r
	}
	if p.RequestState == "" {
		return refuse("inputResponses without requestState: send back the requestState of the input-required result they answer")
	}
	now := time.Now()
	st, err := s.openState(p.RequestState, p.Name, p.Arguments, se.owner, now)
	if err != nil {
		return refuse(err.Error())
	}
	answers := maps.Clone(st.Answers)
	if answers == nil {
		answers = map[string]json.RawMessage{}
	}
	for _, k := range st.Asked {
		if r, ok := p.InputResponses[k]; ok && present(r) {
			answers[k] = r
		}
	}
	if acceptsElicitation(answers) {
		err := s.spent.spend(st.id, st.Expires, se.owner, now)
		var full *spentFullError
		switch {
		case errors.Is(err, errStateSpent):
			return refuse(fmt.Sprintf("%v: %v, and a confirmation runs its call once; call the tool again without requestState to be asked again", errBadState, err))
		case errors.As(err, &full):
			// Not the client's fault: the call is answered, not refused.
			r := rpcResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: env.ID,
				Result: errorResult(fmt.Sprintf("%s was not run: %v. Call it again later", calledName(p.Name, p.Arguments), err))}
			return &r
		}
	}
	rs.answers = answers
	return nil
}

// withInputRequests puts the backend's requests, as it wrote them, into an
// input-required result mcp-go encoded.
func withInputRequests(resp any, asked map[string]json.RawMessage) any {
	r, ok := resp.(rpcResponse)
	if !ok || r.Result == nil {
		return resp
	}
	b, err := json.Marshal(r.Result)
	var m map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &m) != nil {
		return resp
	}
	reqs, err := json.Marshal(asked)
	if err != nil {
		return resp
	}
	delete(m, "content")
	m["inputRequests"] = reqs
	r.Result = m
	return r
}
