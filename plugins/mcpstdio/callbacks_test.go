package mcpstdio_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// TestEverythingAsksTheCallingClient drives server-everything's tools that
// ask their client (sampling, elicitation, roots) through the plugin's real
// gRPC path: each request reaches the Peer of the call that caused it, over
// go-plugin's broker, and the server gets the Peer's answer.
func TestEverythingAsksTheCallingClient(t *testing.T) {
	runShared(t, everything(t), []sharedCase{
		{"tools offered", testCallbackToolsListed},
		{"sampling", testSampling},
		{"elicitation", testElicitation},
		{"roots", testRoots},
		{"client lacks the capability", testClientLacksCapability},
		{"no client", testNoClient},
		{"client never answers", testClientNeverAnswers},
		{"two calls in flight", testAmbiguousCall},
		{"roots changed", testRootsChanged},
	})
}

func callPeer(t *testing.T, h *harness, peer protov1.Peer, name string, args any) *protov1.Result {
	t.Helper()
	res, err := h.callWith(t, &protov1.CallRequest{Name: name, Arguments: mustJSON(t, args), Peer: peer}, &plugintest.Events{})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func testCallbackToolsListed(t *testing.T, h *harness) {
	tools, err := h.host.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} {
		if !slices.Contains(toolNames(tools), want) {
			t.Errorf("tool %q not offered: %v", want, toolNames(tools))
		}
	}
	info, err := h.host.GetInfo(context.Background())
	if err != nil || !info.Capabilities.ClientCallbacks {
		t.Errorf("mcp-stdio must declare client callbacks: %+v, %v", info.Capabilities, err)
	}
}

func testSampling(t *testing.T, h *harness) {
	peer := &plugintest.Peer{CreateMessage: plugintest.Answer(map[string]any{
		"role": "assistant", "model": "test-model", "stopReason": "endTurn",
		"content": map[string]any{"type": "text", "text": "sampled by the test client"}})}
	res := callPeer(t, h, peer, "trigger-sampling-request", map[string]any{"prompt": "say hi", "maxTokens": 7})
	if res.IsError || !strings.Contains(textOf(res), "sampled by the test client") || !strings.Contains(textOf(res), "test-model") {
		t.Errorf("result = %+v", res)
	}
	reqs := peer.Requests()
	if len(reqs) != 1 || reqs[0].Method != protov1.MethodCreateMessage {
		t.Fatalf("the client got %+v; want one sampling request", reqs)
	}
	var p struct {
		MaxTokens int `json:"maxTokens"`
		Messages  []struct {
			Content struct{ Text string } `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[0].Params, &p); err != nil || p.MaxTokens != 7 || len(p.Messages) != 1 || !strings.Contains(p.Messages[0].Content.Text, "say hi") {
		t.Errorf("sampling params as the client got them: %s (%v)", reqs[0].Params, err)
	}
}

func testElicitation(t *testing.T, h *harness) {
	peer := &plugintest.Peer{Elicit: plugintest.Answer(map[string]any{
		"action": "accept", "content": map[string]any{"name": "Ada Lovelace", "check": true}})}
	res := callPeer(t, h, peer, "trigger-elicitation-request", map[string]any{})
	if res.IsError || !strings.Contains(textOf(res), "Ada Lovelace") {
		t.Errorf("result = %+v", res)
	}
	if reqs := peer.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Params), `"requestedSchema"`) {
		t.Errorf("the client got %+v; want one form elicitation", reqs)
	}
}

func testRoots(t *testing.T, h *harness) {
	peer := &plugintest.Peer{ListRoots: plugintest.Answer(map[string]any{
		"roots": []map[string]any{{"uri": "file:///work/project", "name": "project"}}})}
	res := callPeer(t, h, peer, "get-roots-list", map[string]any{})
	if res.IsError || !strings.Contains(textOf(res), "file:///work/project") {
		t.Errorf("result = %+v", res)
	}
}

func testClientLacksCapability(t *testing.T, h *harness) {
	peer := &plugintest.Peer{ListRoots: plugintest.Answer(map[string]any{"roots": []any{}})}
	begin := time.Now()
	res := callPeer(t, h, peer, "trigger-sampling-request", map[string]any{"prompt": "x"})
	want := "the calling client does not support sampling"
	if !res.IsError || !strings.Contains(textOf(res), want) {
		t.Errorf("result = %+v; want an error result saying %q", res, want)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if n := len(peer.Requests()); n != 0 {
		t.Errorf("a client without sampling was asked %d times", n)
	}
}

func testNoClient(t *testing.T, h *harness) {
	res := callPeer(t, h, nil, "trigger-elicitation-request", map[string]any{})
	if want := "no client to ask"; !res.IsError || !strings.Contains(textOf(res), want) {
		t.Errorf("result = %+v; want an error result saying %q", res, want)
	}
}

func testClientNeverAnswers(t *testing.T, h *harness) {
	asked := make(chan struct{}, 1)
	peer := &plugintest.Peer{CreateMessage: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	begin := time.Now()
	_, err := h.host.CallTool(ctx, &protov1.CallRequest{Name: "trigger-sampling-request",
		Arguments: mustJSON(t, map[string]any{"prompt": "x"}), Peer: peer}, &plugintest.Events{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want DeadlineExceeded", err)
	}
	if d := time.Since(begin); d > 4*time.Second {
		t.Errorf("the call took %v to end after its 2s deadline", d)
	}
	select {
	case <-asked:
	default:
		t.Error("the client was never asked")
	}
	if !waitFor(5*time.Second, func() bool { r, c := h.b.Tracked(); return r == 0 && c == 0 }) {
		r, c := h.b.Tracked()
		t.Errorf("the backend still tracks %d progress routes, %d calls", r, c)
	}
	// The server got its answer (an error) and goes on serving.
	if res := h.call(t, "echo", map[string]any{"message": "after"}); textOf(res) != "Echo: after" {
		t.Errorf("echo after = %+v", res)
	}
}

// With two calls in flight the server's request could belong to either: no
// client is asked on the other's behalf.
func testAmbiguousCall(t *testing.T, h *harness) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	long := make(chan error, 1)
	go func() {
		_, err := h.host.CallTool(ctx, &protov1.CallRequest{Name: "trigger-long-running-operation",
			Arguments: mustJSON(t, map[string]any{"duration": 30, "steps": 30})}, nil)
		long <- err
	}()
	if !waitFor(5*time.Second, func() bool { _, c := h.b.Tracked(); return c == 1 }) {
		t.Fatal("the long call did not start")
	}
	peer := &plugintest.Peer{CreateMessage: plugintest.Answer(map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "x"}})}
	res := callPeer(t, h, peer, "trigger-sampling-request", map[string]any{"prompt": "x"})
	if want := "2 tool calls are in progress"; !res.IsError || !strings.Contains(textOf(res), want) {
		t.Errorf("result = %+v; want an error result saying %q", res, want)
	}
	if n := len(peer.Requests()); n != 0 {
		t.Errorf("the client was asked %d times on a guess", n)
	}
	cancel()
	<-long
}

// A client's roots changed: by default the server hears nothing of it (see
// TestFilesystemRootsChanged for why).
func testRootsChanged(t *testing.T, h *harness) {
	rw, ok := h.host.(protov1.RootsWatcher)
	if !ok {
		t.Fatal("the host's view of the plugin cannot pass on RootsChanged")
	}
	if err := rw.RootsChanged(context.Background()); err != nil {
		t.Fatalf("RootsChanged: %v", err)
	}
	if !waitFor(5*time.Second, func() bool { return strings.Contains(h.logs.String(), "not passed on to the server") }) {
		t.Errorf("RootsChanged was not declined; plugin log:\n%s", h.logs.String())
	}
}

// TestEverythingRootsChangedForwarded: with forward_roots_changed, the server
// hears notifications/roots/list_changed and asks for the roots at once,
// outside any call, so no client is asked and the server is told why.
func TestEverythingRootsChangedForwarded(t *testing.T) {
	cfg := everything(t)
	cfg["forward_roots_changed"] = true
	h := start(t, cfg)
	unasked := func() int {
		return strings.Count(h.logs.String(), "server request with no client to ask: method=roots/list")
	}
	before := unasked()
	if err := h.host.(protov1.RootsWatcher).RootsChanged(context.Background()); err != nil {
		t.Fatalf("RootsChanged: %v", err)
	}
	if !waitFor(5*time.Second, func() bool { return unasked() > before }) {
		t.Errorf("the server did not ask for roots after notifications/roots/list_changed; plugin log:\n%s", h.logs.String())
	}
}

// TestFixtureRequestsFindTheirCall uses a server that names the call its
// request belongs to by progress token, and one that gives up on its request.
func TestFixtureRequestsFindTheirCall(t *testing.T) {
	h := start(t, fixture(t))
	answer := plugintest.Answer(map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "from the right client"}})

	t.Run("by progress token among several calls", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		other := make(chan error, 1)
		go func() {
			_, err := h.host.CallTool(ctx, &protov1.CallRequest{Name: "wait-for-cancel", Arguments: mustJSON(t, map[string]any{}),
				Peer: &plugintest.Peer{CreateMessage: answer}}, nil)
			other <- err
		}()
		defer func() { cancel(); <-other }()
		if !waitFor(5*time.Second, func() bool { _, c := h.b.Tracked(); return c == 1 }) {
			t.Fatal("the other call did not start")
		}
		peer := &plugintest.Peer{CreateMessage: answer}
		res, err := h.callWith(t, &protov1.CallRequest{Name: "sample", Arguments: mustJSON(t, map[string]any{"text": "hi"}),
			WantProgress: true, Peer: peer}, &plugintest.Events{})
		if err != nil || res.IsError || textOf(res) != "sampled: from the right client" {
			t.Fatalf("sample = %+v, %v", res, err)
		}
		if n := len(peer.Requests()); n != 1 {
			t.Errorf("the calling client was asked %d times; want 1", n)
		}
	})

	t.Run("server gives up while the call goes on", func(t *testing.T) {
		released := make(chan struct{})
		peer := &plugintest.Peer{CreateMessage: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			<-ctx.Done()
			close(released)
			return nil, ctx.Err()
		}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := h.host.CallTool(ctx, &protov1.CallRequest{Name: "sample",
				Arguments: mustJSON(t, map[string]any{"text": "hi", "timeoutMs": 300, "stay": true}), Peer: peer}, nil)
			done <- err
		}()
		defer func() { cancel(); <-done }()
		select {
		case <-released:
		case err := <-done:
			t.Fatalf("the call ended (%v) before its client was released", err)
		case <-time.After(5 * time.Second):
			t.Fatal("the client was still being asked 5s after the server cancelled its request")
		}
		if _, c := h.b.Tracked(); c != 1 {
			t.Errorf("%d calls running; want the call to go on", c)
		}
	})
}

// TestPluginProcessAsksTheCallingClient runs the plugin as its own process,
// as the gateway does: server-everything's sampling request crosses the
// plugin process and go-plugin's broker to the Peer of the call.
func TestPluginProcessAsksTheCallingClient(t *testing.T) {
	p, _ := startPluginProcess(t)
	peer := &plugintest.Peer{CreateMessage: plugintest.Answer(map[string]any{
		"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "across two processes"}})}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := p.CallTool(ctx, &protov1.CallRequest{Name: "trigger-sampling-request",
		Arguments: mustJSON(t, map[string]any{"prompt": "hi"}), Peer: peer}, &plugintest.Events{})
	if err != nil || res.IsError || !strings.Contains(textOf(res), "across two processes") {
		t.Fatalf("trigger-sampling-request = %+v, %v", res, err)
	}
	if err := p.RootsChanged(ctx); err != nil {
		t.Errorf("RootsChanged: %v", err)
	}
}
