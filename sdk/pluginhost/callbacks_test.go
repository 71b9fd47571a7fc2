package pluginhost_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func sampler(text string) *plugintest.Peer {
	return &plugintest.Peer{CreateMessage: func(_ context.Context, params json.RawMessage) (json.RawMessage, error) {
		var p struct {
			Messages []struct {
				Content struct{ Text string } `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(params, &p); err != nil || len(p.Messages) != 1 {
			return nil, fmt.Errorf("bad params %s: %v", params, err)
		}
		return json.Marshal(map[string]any{"role": "assistant", "model": "m",
			"content": map[string]any{"type": "text", "text": text + " " + p.Messages[0].Content.Text}})
	}}
}

// A plugin process asks the client of its call over go-plugin's broker; the
// callback service is gone when the call is, leaving no goroutine and no
// socket behind.
func TestPluginAsksTheCallsClientOverTheBroker(t *testing.T) {
	p := start(t)
	callText(t, p, "echo", `{"text":"warm up"}`) // the connection's own goroutines
	before := goleak.IgnoreCurrent()
	socketsBefore := brokerSockets(t)
	during := 0
	for i := range 3 {
		peer := sampler(fmt.Sprint("client", i))
		answer := peer.CreateMessage
		peer.CreateMessage = func(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
			during = brokerSockets(t)
			return answer(ctx, params)
		}
		res, err := p.CallTool(context.Background(), &protov1.CallRequest{Name: "sample", Arguments: json.RawMessage(`{"text":"hi"}`), Peer: peer}, nil)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if want := fmt.Sprintf("client%d hi", i); res.IsError || res.Content[0].Text != want {
			t.Errorf("call %d = %+v; want %q", i, res, want)
		}
		if n := len(peer.Requests()); n != 1 {
			t.Errorf("call %d: its client was asked %d times", i, n)
		}
	}
	goleak.VerifyNone(t, before)
	if after := brokerSockets(t); after != socketsBefore || during != socketsBefore+1 {
		t.Errorf("broker sockets: %d before the calls, %d during one, %d after; want one more only during", socketsBefore, during, after)
	}
}

func TestPluginWithoutAClientHearsWhy(t *testing.T) {
	p := start(t)
	for _, tc := range []struct {
		name string
		peer protov1.Peer
		want string
	}{
		{"no client", nil, "sampling/createMessage: no client to ask"},
		{"client that declared nothing", &plugintest.Peer{}, `the calling client does not support sampling (it did not declare the "sampling" capability)`},
		{"client with roots only", &plugintest.Peer{ListRoots: plugintest.Answer(map[string]any{"roots": []any{}})}, "the calling client does not support sampling"},
	} {
		res, err := p.CallTool(context.Background(), &protov1.CallRequest{Name: "sample", Arguments: json.RawMessage(`{"text":"hi"}`), Peer: tc.peer}, nil)
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, tc.want) {
			t.Errorf("%s: %+v, %v; want an error result saying %q", tc.name, res, err, tc.want)
		}
	}
}

func TestCallEndsWhileItsClientIsAsked(t *testing.T) {
	p := start(t)
	callText(t, p, "echo", `{"text":"warm up"}`)
	before := goleak.IgnoreCurrent()
	peer := &plugintest.Peer{CreateMessage: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := p.CallTool(ctx, &protov1.CallRequest{Name: "sample", Arguments: json.RawMessage(`{"text":"hi"}`), Peer: peer}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want DeadlineExceeded", err)
	}
	goleak.VerifyNone(t, before)
	if got := callText(t, p, "echo", `{"text":"after"}`); got != "after" {
		t.Errorf("after: %q", got)
	}
}

func TestRootsChangedReachesThePlugin(t *testing.T) {
	p := start(t)
	for range 2 {
		if err := p.RootsChanged(context.Background()); err != nil {
			t.Fatalf("RootsChanged: %v", err)
		}
	}
	if got := callText(t, p, "roots_changed", `{}`); got != "2" {
		t.Errorf("the plugin heard %s notices; want 2", got)
	}
}

// brokerSockets counts the sockets go-plugin's broker listens on in this
// host's socket directories.
func brokerSockets(t *testing.T) int {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("toolgate-sock-%d-*", os.Getpid()), "*"))
	n := 0
	for _, d := range dirs {
		entries, _ := os.ReadDir(d)
		n += len(entries)
	}
	return n
}
