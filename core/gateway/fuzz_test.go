package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
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
// must not panic, and an id found must be a JSON string or number.
func FuzzSalvageID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"x":"`), []byte(`xxx"}}`))
	f.Add([]byte(`{"method":"tools/call","params":{"arguments":{"t":"`), []byte(`xx"}},"jsonrpc":"2.0","id":"a\"b"}`))
	f.Add([]byte(`[1,2]`), []byte(`{"id":{}}`))
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		if id := salvageID(head, tail); id != nil {
			var v any
			dec := json.NewDecoder(bytes.NewReader(id))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("salvaged id %q is not JSON: %v", id, err)
			}
			switch v.(type) {
			case string, json.Number:
			default:
				t.Fatalf("salvaged id %q is %T", id, v)
			}
		}
		if env, err := parseEnvelope(head); err == nil {
			_ = env.callParams()
			_ = env.isRequest() || env.isNotification()
		}
	})
}
