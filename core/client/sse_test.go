package client

import (
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestReadEvents(t *testing.T) {
	stream := ": keep-alive\n\n" +
		"event: message\ndata: {\"a\":1}\n\n" +
		"data: {\"b\":\ndata: 2}\n\n" +
		"event: other\ndata: skipped\n\n" +
		"id: 7\nretry: 100\ndata:{\"c\":3}\n\n" +
		"data: unterminated"
	var got []string
	if err := readEvents(strings.NewReader(stream), func(d []byte) error {
		got = append(got, string(d))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"a":1}`, "{\"b\":\n2}", `{"c":3}`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

func TestSameID(t *testing.T) {
	for _, tc := range []struct {
		msg, id string
		want    bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, `1`, true},
		{`{"jsonrpc":"2.0","id":"a b","result":{}}`, `"a b"`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"x"}`, `1`, false},
		{`{"jsonrpc":"2.0","id":2,"result":{}}`, `1`, false},
		{`{"jsonrpc":"2.0","id":"1","result":{}}`, `1`, false},
		{`not json`, `1`, false},
	} {
		if got := sameID([]byte(tc.msg), []byte(tc.id)); got != tc.want {
			t.Errorf("sameID(%s, %s) = %v", tc.msg, tc.id, got)
		}
	}
}

// FuzzReadEvents: whatever a server sends, the reader neither panics nor
// hands on more data than it read.
func FuzzReadEvents(f *testing.F) {
	f.Add("data: {}\n\n")
	f.Add("event: message\r\ndata: a\r\ndata: b\r\n\r\n")
	f.Add(": c\n\ndata\n\n:\ndata:\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		total := 0
		_ = readEvents(strings.NewReader(s), func(d []byte) error {
			total += len(d)
			return nil
		})
		if total > len(s) {
			t.Errorf("%d bytes of events from %d bytes of stream", total, len(s))
		}
	})
}

// An answer past maxEventBytes (a plugin's huge result, passed on whole)
// says so, and is not taken for a lost connection, after which a caller
// might run the request again.
func TestTooLargeAnAnswerIsNotALostConnection(t *testing.T) {
	stream := io.MultiReader(strings.NewReader(`data: {"jsonrpc":"2.0","id":1,"result":{"text":"`),
		io.LimitReader(xs{}, maxEventBytes), strings.NewReader("\"}}\n\n"))
	_, err := readResponse(stream, json.RawMessage("1"), nil)
	if !errors.Is(err, ErrMessageTooLarge) || errors.Is(err, ErrConnectionLost) {
		t.Fatalf("err = %v, want ErrMessageTooLarge and not ErrConnectionLost", err)
	}
	if !strings.Contains(err.Error(), "64 MiB") || !strings.Contains(err.Error(), "ask for less") {
		t.Errorf("err = %v, want the limit and what to do", err)
	}
}

// xs reads as endless 'x's.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
