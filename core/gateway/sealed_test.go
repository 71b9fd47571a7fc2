package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Sealed sessions are tested across Servers that share nothing but their
// keys, as replicas behind a load balancer do.

func testKey(b byte) []byte { return bytes.Repeat([]byte{b}, MinSessionKey) }

// replica is one Server of a test's set of replicas.
func replica(t *testing.T, keys [][]byte, mod func(*Options)) string {
	t.Helper()
	f := newFixture(t, func(o *Options) {
		o.SessionKeys = keys
		o.Tokens = []string{"token-a", "token-b"}
		o.Tools = append(o.Tools, Tool{Name: "whoami", Handle: func(ctx context.Context, _ json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
			c, _ := CallerFrom(ctx)
			return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: c.Session}}}, nil
		}})
		if mod != nil {
			mod(o)
		}
	})
	return startHTTP(t, f).URL + "/mcp"
}

// rich is an initialize declaring capabilities the session must keep.
const richInitialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{"sampling":{"tools":{}},"elicitation":{"form":{}},"roots":{"listChanged":true}},` +
	`"clientInfo":{"name":"ide","version":"9.1"}}}`

// openSession initializes on url as token and returns the session id.
func openSession(t *testing.T, url, token, body string) string {
	t.Helper()
	c := newHTTPConn(t, url, nil)
	c.header.Set("Authorization", "Bearer "+token)
	resp := c.do(c.request(http.MethodPost, body))
	defer resp.Body.Close()
	msgs := readMessages(t, resp)
	if resp.StatusCode != http.StatusOK || len(msgs) != 1 || msgs[0].Error != nil {
		t.Fatalf("initialize: %d %+v", resp.StatusCode, msgs)
	}
	sid := resp.Header.Get(headerSessionID)
	if sid == "" {
		t.Fatal("initialize answered without a session id")
	}
	return sid
}

// onSession is a connection to url using session sid as token.
func onSession(t *testing.T, url, token, sid string) *httpConn {
	c := newHTTPConn(t, url, nil)
	c.header.Set("Authorization", "Bearer "+token)
	c.sid = sid
	return c
}

// whoami returns the session a call on c is audited under, or fails the
// test with the status it got.
func whoami(t *testing.T, c *httpConn, wantStatus int) string {
	t.Helper()
	status, msgs := c.post(callBody(1, "whoami", "", ""))
	if status != wantStatus {
		t.Fatalf("call on session %.20s…: status %d %+v, want %d", c.sid, status, msgs, wantStatus)
	}
	if status != http.StatusOK {
		return ""
	}
	var res struct{ Content []struct{ Text string } }
	if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &res) != nil || len(res.Content) != 1 {
		t.Fatalf("whoami: %+v", msgs)
	}
	return res.Content[0].Text
}

func TestSealedSessionIsServedByAReplicaThatNeverSawIt(t *testing.T) {
	keys := [][]byte{testKey(1)}
	a, b := replica(t, keys, nil), replica(t, keys, nil)
	sid := openSession(t, a, "token-a", richInitialize)
	if !strings.HasPrefix(sid, sealedPrefix) || strings.ContainsFunc(sid, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		t.Fatalf("session id %q is not a sealed id of visible ASCII", sid)
	}

	onB := onSession(t, b, "token-a", sid)
	onB.header.Set(headerProtocol, "2025-06-18")
	if status, _ := onB.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized on the other replica: %d, want 202", status)
	}
	// The capabilities declared at initialize travel with the id.
	status, msgs := onB.post(callBody(2, "ask", `{"asks":[]}`, ""))
	var rep struct{ StructuredContent askReport }
	if status != http.StatusOK || len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &rep) != nil {
		t.Fatalf("ask on the other replica: %d %+v", status, msgs)
	}
	want := protov1.PeerCapabilities{Sampling: true, SamplingTools: true, Elicitation: true, ElicitationForm: true, Roots: true, RootsListChanged: true}
	if rep.StructuredContent.Caps != want {
		t.Errorf("capabilities on the other replica %+v, want %+v", rep.StructuredContent.Caps, want)
	}
	// Both replicas audit the session under one handle, never the id.
	onA := onSession(t, a, "token-a", sid)
	ha, hb := whoami(t, onA, http.StatusOK), whoami(t, onB, http.StatusOK)
	if ha != hb || len(ha) != 32 || strings.Contains(sid, ha) {
		t.Errorf("session audited as %q on one replica and %q on the other; want one 32-hex handle that is not part of the id", ha, hb)
	}
}

func TestSealedSessionKeepsVersionAndClient(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.SessionKeys = [][]byte{testKey(1)} })
	url := startHTTP(t, f).URL + "/mcp"
	sid := openSession(t, url, "", richInitialize)
	st, err := f.srv.sealer.unseal(sid)
	if err != nil {
		t.Fatalf("open the id just issued: %v", err)
	}
	if st.Version != "2025-06-18" || st.Info == nil || st.Info.Name != "ide" || st.Info.Version != "9.1" || st.principal() != (Principal{}) {
		t.Errorf("sealed state %+v", st)
	}
	if age := time.Unix(st.Expires, 0).Sub(time.Unix(st.Issued, 0)); age != DefaultSessionMaxAge {
		t.Errorf("sealed session lives %v, want %v", age, DefaultSessionMaxAge)
	}
	// A second replica rebuilds exactly what the first holds.
	other, err := New(Options{Name: "x", SessionKeys: [][]byte{testKey(1)}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	se, err := other.sessionFromState(sid, st)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := f.srv.lookupSession(sid)
	if se.ProtocolVersion() != orig.ProtocolVersion() || se.GetClientInfo().Name != orig.GetClientInfo().Name ||
		peerCapabilities(se.GetClientCapabilities()) != peerCapabilities(orig.GetClientCapabilities()) {
		t.Errorf("rebuilt session %q %+v %+v differs from the original %q %+v %+v",
			se.ProtocolVersion(), se.GetClientInfo(), se.GetClientCapabilities(),
			orig.ProtocolVersion(), orig.GetClientInfo(), orig.GetClientCapabilities())
	}
}

func TestSealedSessionRefusals(t *testing.T) {
	keys := [][]byte{testKey(1)}
	a := replica(t, keys, nil)
	sid := openSession(t, a, "token-a", richInitialize)
	flipped := []byte(sid)
	flipped[len(flipped)-5] ^= 1
	for name, tc := range map[string]struct {
		url, token, sid string
	}{
		"another principal":        {replica(t, keys, nil), "token-b", sid},
		"an altered id":            {replica(t, keys, nil), "token-a", string(flipped)},
		"a truncated id":           {replica(t, keys, nil), "token-a", sid[:len(sid)-10]},
		"another key":              {replica(t, [][]byte{testKey(2)}, nil), "token-a", sid},
		"a replica without keys":   {replica(t, nil, nil), "token-a", sid},
		"a random id":              {replica(t, keys, nil), "token-a", "0123456789abcdef0123456789abcdef"},
		"the prefix and no sealed": {replica(t, keys, nil), "token-a", sealedPrefix},
	} {
		t.Run(name, func(t *testing.T) {
			whoami(t, onSession(t, tc.url, tc.token, tc.sid), http.StatusNotFound)
		})
	}
	// The owner, on the replica the intruders tried, is served still.
	b := replica(t, keys, nil)
	notOwner(t, onSession(t, b, "token-a", sid), onSession(t, b, "token-b", ""))
}

func TestSealedSessionKeyRotation(t *testing.T) {
	old, next := testKey(1), testKey(2)
	a := replica(t, [][]byte{old}, nil)
	both := replica(t, [][]byte{next, old}, nil)
	onlyNext := replica(t, [][]byte{next}, nil)

	fromOld := openSession(t, a, "token-a", richInitialize)
	whoami(t, onSession(t, both, "token-a", fromOld), http.StatusOK)
	whoami(t, onSession(t, onlyNext, "token-a", fromOld), http.StatusNotFound)

	fromBoth := openSession(t, both, "token-a", richInitialize)
	whoami(t, onSession(t, onlyNext, "token-a", fromBoth), http.StatusOK)
	whoami(t, onSession(t, a, "token-a", fromBoth), http.StatusNotFound)
}

func TestSealedSessionExpiresAndDeleteHolds(t *testing.T) {
	keys := [][]byte{testKey(1)}
	short := func(o *Options) { o.SessionMaxAge = 2 * time.Second }
	a, b, c := replica(t, keys, short), replica(t, keys, short), replica(t, keys, short)
	sid := openSession(t, a, "token-a", richInitialize)
	onB := onSession(t, b, "token-a", sid)
	whoami(t, onB, http.StatusOK)

	resp := onB.do(onB.request(http.MethodDelete, ""))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d, want 204", resp.StatusCode)
	}
	// The replica that deleted it does not bring it back; one that never
	// heard of the DELETE serves it until it expires.
	whoami(t, onB, http.StatusNotFound)
	onC := onSession(t, c, "token-a", sid)
	whoami(t, onC, http.StatusOK)

	time.Sleep(2100 * time.Millisecond)
	for name, conn := range map[string]*httpConn{"the replica that opened it": onSession(t, a, "token-a", sid), "a replica holding it": onC,
		"a replica that never saw it": onSession(t, replica(t, keys, short), "token-a", sid)} {
		t.Run(name, func(t *testing.T) { whoami(t, conn, http.StatusNotFound) })
	}
}

func TestSealedSessionsStayCappedPerReplica(t *testing.T) {
	keys := [][]byte{testKey(1)}
	a := replica(t, keys, nil)
	b := replica(t, keys, func(o *Options) { o.MaxSessions = 1 })
	first, second := openSession(t, a, "token-a", richInitialize), openSession(t, a, "token-a", richInitialize)
	whoami(t, onSession(t, b, "token-a", first), http.StatusOK)
	over := onSession(t, b, "token-a", second)
	status, msgs := over.post(callBody(1, "whoami", "", ""))
	if status != http.StatusServiceUnavailable || len(msgs) != 1 || msgs[0].Error == nil || !strings.Contains(msgs[0].Error.Message, "too many sessions") {
		t.Fatalf("a session over the cap: %d %+v, want 503 saying too many sessions", status, msgs)
	}
}

func TestSealTooLargeCapabilities(t *testing.T) {
	sl, err := newSealer([][]byte{testKey(1)})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", maxSealedState)
	st := sessionState{Handle: "h", Info: &mcp.Implementation{Name: big}, Expires: time.Now().Add(time.Hour).Unix()}
	id, err := sl.seal(st)
	if err != nil {
		t.Fatalf("seal with a large client info: %v", err)
	}
	if got, err := sl.unseal(id); err != nil || got.Info != nil {
		t.Errorf("large client info: opened %+v, %v; want the state without it", got, err)
	}
	st.Caps.Experimental = map[string]any{"blob": big}
	if _, err := sl.seal(st); !errors.Is(err, errCapsTooLarge) {
		t.Errorf("seal with capabilities too large: %v, want an error saying so", err)
	}
}

func TestSessionKeyOptions(t *testing.T) {
	for name, mod := range map[string]func(*Options){
		"short key":        func(o *Options) { o.SessionKeys = [][]byte{testKey(1), []byte("short")} },
		"negative max age": func(o *Options) { o.SessionMaxAge = -time.Second },
	} {
		_, err := buildFixture(mod)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.HasPrefix(oe.Field, map[string]string{"short key": "SessionKeys[1]", "negative max age": "SessionMaxAge"}[name]) {
			t.Errorf("%s: %v, want an OptionError naming the field", name, err)
		}
	}
}

func TestSessionAndStateKeysDiffer(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.SessionKeys = [][]byte{testKey(1)}
		o.InputStateKey = testKey(1)
	})
	sub, err := deriveKey(testKey(1), sessionKeyLabel)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(f.srv.stateKeys[0], testKey(1)) || bytes.Equal(f.srv.stateKeys[0], sub) {
		t.Error("one configured key serves both purposes as the same bytes")
	}
}

func FuzzOpenSessionID(f *testing.F) {
	sl, err := newSealer([][]byte{testKey(1)})
	if err != nil {
		f.Fatal(err)
	}
	sealedID, err := sl.seal(sessionState{Handle: "h", Expires: time.Now().Add(time.Hour).Unix()})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sealedID)
	f.Add(respelled(sealedID))
	f.Add(sealedPrefix)
	f.Add(sealedPrefix + "AAAA")
	f.Add("0123456789abcdef")
	f.Fuzz(func(t *testing.T, id string) {
		st, err := sl.unseal(id)
		if (st == nil) == (err == nil) {
			t.Fatalf("unseal(%q) = %v, %v: want a state or an error", id, st, err)
		}
		if err == nil && st.Handle != "h" {
			t.Fatalf("unseal(%q) accepted a state never sealed: %+v", id, st)
		}
		// One spelling per id: what opens is the canonical encoding.
		if raw, derr := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(id, sealedPrefix)); err == nil &&
			(derr != nil || sealedPrefix+base64.RawURLEncoding.EncodeToString(raw) != id) {
			t.Fatalf("unseal(%q) accepted an id spelt another way than seal spells it", id)
		}
	})
}

func TestRequestStateKeyRotation(t *testing.T) {
	withKeys := func(key []byte, previous ...[]byte) *Server {
		return newFixture(t, func(o *Options) { o.InputStateKey, o.PreviousInputStateKeys = key, previous }).srv
	}
	next, rotating, old := withKeys(testKey(2)), withKeys(testKey(1), testKey(2)), withKeys(testKey(1))
	args := json.RawMessage(`{"a":1}`)
	state, err := next.sealState(inputState{Tool: "ask", Args: argsDigest(args),
		Expires: time.Now().Add(time.Minute).Unix()}, Principal{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rotating.openState(state, "ask", args, Principal{}, time.Now()); err != nil {
		t.Errorf("a state signed with a previous key: %v", err)
	}
	if _, err := old.openState(state, "ask", args, Principal{}, time.Now()); !errors.Is(err, errBadState) {
		t.Errorf("a state signed with a key not held: %v, want it refused", err)
	}
	if _, err := buildFixture(func(o *Options) { o.PreviousInputStateKeys = [][]byte{[]byte("short")} }); err == nil ||
		!strings.Contains(err.Error(), "PreviousInputStateKeys[0]: is 5 bytes") {
		t.Errorf("a short previous key: %v", err)
	}
}

// BenchmarkOpenSessionID is what a replica pays the first time it sees a
// session (later requests find it in memory).
func BenchmarkOpenSessionID(b *testing.B) {
	sl, err := newSealer([][]byte{testKey(2), testKey(1)})
	if err != nil {
		b.Fatal(err)
	}
	old, err := newSealer([][]byte{testKey(1)})
	if err != nil {
		b.Fatal(err)
	}
	st := sessionState{Handle: "0123456789abcdef0123456789abcdef", Version: "2025-11-25",
		Caps: mcp.ClientCapabilities{Roots: &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{ListChanged: true}},
		Info: &mcp.Implementation{Name: "ide", Version: "1.0"}, Expires: time.Now().Add(time.Hour).Unix()}
	for name, s := range map[string]*sealer{"current key": sl, "previous key": old} {
		id, err := s.seal(st)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := sl.unseal(id); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(id)), "id-bytes")
		})
	}
}
