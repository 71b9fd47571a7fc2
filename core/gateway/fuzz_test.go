package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzLineReader checks the stdio framing against a plain split on '\n':
// every line within the limit comes out whole, every longer one as exactly
// one tooLargeError of its size, blank lines not at all.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n{\"b\":2}\r\nlast"), uint16(8))
	f.Add(bytes.Repeat([]byte("x"), 70000), uint16(100))
	f.Add([]byte("short\n"+string(bytes.Repeat([]byte("y"), 5000))+"\r\n  \nok\n"), uint16(10))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		max := int64(limit%2048) + 1
		type item struct {
			line string
			size int64 // > 0 for an oversized line
		}
		var want []item
		segs := bytes.Split(data, []byte("\n"))
		for i, seg := range segs {
			if i == len(segs)-1 && len(seg) == 0 {
				break
			}
			seg = bytes.TrimSuffix(seg, []byte("\r"))
			switch {
			case int64(len(seg)) > max:
				want = append(want, item{size: int64(len(seg))})
			case len(bytes.TrimSpace(seg)) > 0:
				want = append(want, item{line: string(seg)})
			}
		}

		lr := newLineReader(bytes.NewReader(data), max)
		var got []item
		for {
			line, err := lr.next()
			if err == io.EOF {
				break
			}
			var big *tooLargeError
			if errors.As(err, &big) {
				got = append(got, item{size: big.size})
				continue
			}
			if err != nil {
				t.Fatalf("next: %v", err)
			}
			got = append(got, item{line: string(line)})
		}
		if len(got) != len(want) {
			t.Fatalf("got %d items, want %d\ngot  %+v\nwant %+v", len(got), len(want), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("item %d = %+v, want %+v", i, got[i], want[i])
			}
		}
	})
}

// FuzzSalvageID feeds arbitrary bytes to the parsers of unread input: they
// must not panic, and an id found must be a JSON string or integer.
func FuzzSalvageID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"x":"`), []byte(`xxx"}}`))
	f.Add([]byte(`{"method":"tools/call","params":{"arguments":{"t":"`), []byte(`xx"}},"jsonrpc":"2.0","id":"a\"b"}`))
	f.Add([]byte(`[1,2]`), []byte(`{"id":{}}`))
	f.Add([]byte(`{"id":1.5,"method":"tools/call","params":{"x":"`), []byte(`"id":1e3}`))
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		if id := salvageID(head, tail); id != nil && !wireID(id) {
			t.Fatalf("salvaged id %q is not a string or an integer", id)
		}
		if env, err := parseEnvelope(head); err == nil {
			_ = env.callParams()
			_ = env.isRequest() || env.isNotification()
		}
	})
}

// FuzzEnvelope checks what parseEnvelope lets through: every request has a
// string or integer id, and every refusal answers with a valid id or none.
func FuzzEnvelope(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":7}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":3,"result":null}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		env, err := parseEnvelope(msg)
		var invalid *invalidRequestError
		switch {
		case errors.As(err, &invalid):
			if invalid.ID != nil && !wireID(invalid.ID) {
				t.Fatalf("refusal of %q answers with id %q", msg, invalid.ID)
			}
		case err != nil:
		case env.isRequest():
			if !wireID(env.ID) {
				t.Fatalf("%q accepted as a request with id %q", msg, env.ID)
			}
		case !env.isNotification() && env.Method == "" && !env.Result.set && !env.Error.set:
			t.Fatalf("%q accepted as neither request, notification nor response", msg)
		}
	})
}

// FuzzRequestID sends requests with arbitrary ids through the dispatcher:
// an id MCP allows comes back byte for byte, any other is refused.
func FuzzRequestID(f *testing.F) {
	for _, id := range []string{`9007199254740993`, `-0`, `1e3`, `"\u00e9\""`, `1.0`, `[]`, `null`, `00`, ` 7 `} {
		f.Add([]byte(id), uint8(0))
	}
	fx, err := buildFixture(nil)
	if err != nil {
		f.Fatal(err)
	}
	defer fx.srv.Close()
	se, err := fx.srv.newSession(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	methods := []string{
		`"method":"ping"`,
		`"method":"no/such/method"`,
		`"method":"tools/call","params":{"name":"nope"}`,
		`"params":{}`,
	}
	f.Fuzz(func(t *testing.T, id []byte, method uint8) {
		if !json.Valid(id) {
			return // one JSON value, so the id cannot add members of its own
		}
		id = bytes.Trim(id, " \t\r\n")
		rest := methods[int(method)%len(methods)]
		noMethod := !strings.Contains(rest, `"method"`)
		msg := []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,` + rest + `}`)
		env, err := parseEnvelope(msg)
		if !utf8.Valid(msg) {
			if !errors.Is(err, errNotUTF8) {
				t.Fatalf("%q: %v, want refused as not UTF-8", msg, err)
			}
			return
		}
		if err != nil {
			var invalid *invalidRequestError
			if !errors.As(err, &invalid) {
				t.Fatalf("%s: %v, want an invalid request", msg, err)
			}
			var want json.RawMessage
			switch {
			case noMethod && wireID(id):
				want = id
			case wireID(id):
				t.Fatalf("valid id refused: %s: %v", msg, err)
			}
			if !bytes.Equal(invalid.ID, want) {
				t.Fatalf("refusal of %s answers with id %q, want %q", msg, invalid.ID, want)
			}
			return
		}
		if noMethod || !wireID(env.ID) {
			t.Fatalf("accepted: %s", msg)
		}
		resp, err := encodeMessage(fx.srv.dispatch(context.Background(), se, msg, env, nil))
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal(resp, &m); err != nil || !bytes.Equal(m.ID, id) {
			t.Fatalf("request %s answered %s", msg, resp)
		}
	})
}

// wireID is an independent reading of the ids MCP allows: a JSON string, or
// a number written without fraction or exponent that a float64 can hold.
func wireID(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return false
		}
		_, err := strconv.ParseFloat(string(v), 64)
		return err == nil
	}
	return false
}

// FuzzRequestState: no requestState a client makes up is taken, and reading
// one never panics; the one the gateway sealed is taken.
func FuzzRequestState(f *testing.F) {
	fx, err := buildFixture(func(o *Options) { o.InputStateKey = bytes.Repeat([]byte{7}, 32) })
	if err != nil {
		f.Fatal(err)
	}
	defer fx.srv.Close()
	args := json.RawMessage(`{"a":1}`)
	// A fixed clock: every fuzzing worker seals the same state, so a state
	// one worker sealed is never taken for one a client made up in another.
	now := time.Unix(1_900_000_000, 0)
	// A fixed id too, for the same reason: the seal's own id is random.
	sealed, err := fx.srv.sealStateAs(inputState{Tool: "ask", Args: argsDigest(args), Expires: now.Add(time.Hour).Unix()}, Principal{}, stateID{1})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{sealed, "", ".", "e30.", sealed + "x", strings.Replace(sealed, ".", "..", 1)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, state string) {
		_, err := fx.srv.openState(state, "ask", args, Principal{}, now)
		if (err == nil) != (state == sealed) {
			t.Fatalf("openState(%q) = %v", state, err)
		}
		if err != nil && !errors.Is(err, errBadState) {
			t.Fatalf("refusal does not wrap errBadState: %v", err)
		}
	})
}
