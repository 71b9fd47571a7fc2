package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

type contact struct {
	Name  string `json:"name" description:"Your name."`
	Email string `json:"email,omitempty" description:"Where to write."`
}

// askingPlugin has a tool per thing a handler may ask its client.
func askingPlugin() *plugin.Plugin {
	return &plugin.Plugin{Name: "asking", Tools: []plugin.Tool{
		plugin.NewTool("summarize", "Summarize through the client's model.", func(ctx context.Context, call *plugin.Call, in struct {
			Text string `json:"text"`
		}) (*plugin.Result, error) {
			res, err := call.Sample(ctx, plugin.SampleRequest{Messages: []plugin.SamplingMessage{plugin.UserText("Summarize: " + in.Text)}, MaxTokens: 50})
			if err != nil {
				return nil, err
			}
			return plugin.Text(res.Model + ": " + res.Content.Text()), nil
		}),
		plugin.NewTool("ask_contact", "Ask the user who they are.", func(ctx context.Context, call *plugin.Call, _ struct{}) (*plugin.Result, error) {
			req, err := plugin.ElicitForm("Who are you?", contact{})
			if err != nil {
				return nil, err
			}
			res, err := call.Elicit(ctx, req)
			if err != nil {
				return nil, err
			}
			var c contact
			if err := res.Decode(&c); err != nil {
				return plugin.Errorf("%v", err), nil
			}
			return plugin.Text("hello " + c.Name), nil
		}),
		plugin.NewTool("roots", "List the client's roots.", func(ctx context.Context, call *plugin.Call, _ struct{}) (*plugin.Result, error) {
			roots, err := call.Roots(ctx)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range roots {
				uris = append(uris, r.URI)
			}
			return plugin.Text(strings.Join(uris, ",")), nil
		}),
	}}
}

func callWithPeer(t *testing.T, b protov1.Backend, peer protov1.Peer, name, args string) *protov1.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := b.CallTool(ctx, &protov1.CallRequest{Name: name, Arguments: json.RawMessage(args), Peer: peer}, nil)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func TestHandlersAskTheirClient(t *testing.T) {
	b := plugintest.ServePlugin(t, askingPlugin())
	info, err := b.GetInfo(context.Background())
	if err != nil || !info.Capabilities.ClientCallbacks {
		t.Fatalf("a plugin with tools must declare client callbacks: %+v, %v", info.Capabilities, err)
	}
	peer := &plugintest.Peer{
		CreateMessage: plugintest.Answer(map[string]any{"role": "assistant", "model": "m1", "content": map[string]any{"type": "text", "text": "short"}}),
		Elicit:        plugintest.Answer(map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}),
		ListRoots:     plugintest.Answer(map[string]any{"roots": []map[string]any{{"uri": "file:///src", "name": "src"}, {"uri": "file:///doc"}}}),
	}
	for _, tc := range []struct{ tool, args, want string }{
		{"summarize", `{"text":"a long story"}`, "m1: short"},
		{"ask_contact", `{}`, "hello Ada"},
		{"roots", `{}`, "file:///src,file:///doc"},
	} {
		res := callWithPeer(t, b, peer, tc.tool, tc.args)
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != tc.want {
			t.Errorf("%s = %+v; want %q", tc.tool, res, tc.want)
		}
	}
	reqs := peer.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the client got %d requests; want 3: %+v", len(reqs), reqs)
	}
	var sample plugin.SampleRequest
	if err := json.Unmarshal(reqs[0].Params, &sample); err != nil || sample.Messages[0].Content.Text() != "Summarize: a long story" || sample.MaxTokens != 50 {
		t.Errorf("sampling params as the client got them: %s (%v)", reqs[0].Params, err)
	}
	if !strings.Contains(string(reqs[1].Params), `"requestedSchema":{`) || !strings.Contains(string(reqs[1].Params), `"email"`) {
		t.Errorf("elicitation params: %s", reqs[1].Params)
	}
}

func TestAskingWithoutAClientSaysWhy(t *testing.T) {
	b := plugintest.ServePlugin(t, askingPlugin())
	for _, tc := range []struct {
		name string
		peer protov1.Peer
		want string
	}{
		{"no client", nil, "sampling/createMessage: no client to ask"},
		{"client without sampling", &plugintest.Peer{ListRoots: plugintest.Answer(map[string]any{"roots": []any{}})},
			`the calling client does not support sampling (it did not declare the "sampling" capability)`},
	} {
		res := callWithPeer(t, b, tc.peer, "summarize", `{"text":"x"}`)
		if !res.IsError || !strings.Contains(res.Content[0].Text, tc.want) {
			t.Errorf("%s: %+v; want an error result saying %q", tc.name, res, tc.want)
		}
	}
}

// The client's own JSON-RPC error reaches the handler as a *PeerError.
func TestClientErrorReachesTheHandler(t *testing.T) {
	var got error
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "p", Tools: []plugin.Tool{
		plugin.NewTool("ask", "Ask.", func(ctx context.Context, call *plugin.Call, _ struct{}) (*plugin.Result, error) {
			_, got = call.Roots(ctx)
			return plugin.Text("asked"), nil
		}),
	}})
	peer := &plugintest.Peer{ListRoots: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, &protov1.PeerError{Method: protov1.MethodListRoots, Code: -32000, Message: "user said no"}
	}}
	callWithPeer(t, b, peer, "ask", `{}`)
	var pe *protov1.PeerError
	if !errors.As(got, &pe) || pe.Code != -32000 || pe.Message != "user said no" || errors.Is(got, protov1.ErrNoPeer) {
		t.Errorf("handler got %v; want the client's PeerError -32000", got)
	}
	got = nil
	callWithPeer(t, b, nil, "ask", `{}`)
	if !errors.Is(got, protov1.ErrNoPeer) {
		t.Errorf("without a client the handler got %v; want ErrNoPeer", got)
	}
}

// A client that never answers holds the call only as long as its context,
// and nothing of the call's client outlives the call.
func TestUnansweredClientEndsWithTheCall(t *testing.T) {
	b := plugintest.ServePlugin(t, askingPlugin())
	callWithPeer(t, b, nil, "roots", `{}`) // the connection's own goroutines
	before := goleak.IgnoreCurrent()
	peer := &plugintest.Peer{CreateMessage: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	_, err := b.CallTool(ctx, &protov1.CallRequest{Name: "summarize", Arguments: json.RawMessage(`{"text":"x"}`), Peer: peer}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want DeadlineExceeded", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("the call took %v to end", d)
	}
	goleak.VerifyNone(t, before)
}

// MCP sends one content block as an object and several as an array.
func TestSamplingBlocksReadBothShapes(t *testing.T) {
	var one, many plugin.SampleResult
	if err := json.Unmarshal([]byte(`{"role":"assistant","model":"m","content":{"type":"text","text":"hi"}}`), &one); err != nil || one.Content.Text() != "hi" {
		t.Errorf("one block: %+v, %v", one, err)
	}
	if err := json.Unmarshal([]byte(`{"content":[{"type":"text","text":"a"},{"type":"tool_use","id":"1","name":"f","input":{}}]}`), &many); err != nil ||
		len(many.Content) != 2 || many.Content[1].Name != "f" || many.Content.Text() != "a" {
		t.Errorf("two blocks: %+v, %v", many, err)
	}
	b, _ := json.Marshal(plugin.UserText("x"))
	if string(b) != `{"role":"user","content":{"type":"text","text":"x"}}` {
		t.Errorf("one block is written as an object: %s", b)
	}
}

func FuzzSamplingBlocks(f *testing.F) {
	f.Add([]byte(`{"type":"text","text":"hi"}`))
	f.Add([]byte(`[{"type":"image","data":"AA==","mimeType":"image/png"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b plugin.SamplingBlocks
		if json.Unmarshal(data, &b) != nil {
			return
		}
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("re-encode %q: %v", data, err)
		}
		var again plugin.SamplingBlocks
		if err := json.Unmarshal(out, &again); err != nil || len(again) != len(b) {
			t.Fatalf("round trip of %q: %s, %v", data, out, err)
		}
	})
}

// MCP forms are flat: a field a client cannot show is refused where the
// form is made, not when the user is waiting for it.
func TestElicitFormIsFlat(t *testing.T) {
	type address struct {
		City string `json:"city"`
	}
	good := struct {
		Name   string   `json:"name"`
		Age    int      `json:"age,omitempty"`
		Ratio  float64  `json:"ratio,omitempty"`
		OK     bool     `json:"ok"`
		Colour string   `json:"colour" enum:"red,blue"`
		Tags   []string `json:"tags,omitempty" enum:"a,b"`
	}{}
	if _, err := plugin.ElicitForm("ok?", good); err != nil {
		t.Errorf("a flat form: %v", err)
	}
	for want, v := range map[string]any{
		`field "home" is an object`: struct {
			Home address `json:"home"`
		}{},
		`field "tags" is a list without an enum`: struct {
			Tags []string `json:"tags"`
		}{},
		`field "any" is any value`: struct {
			Any any `json:"any"`
		}{},
	} {
		if _, err := plugin.ElicitForm("?", v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ElicitForm(%T) err = %v, want %q", v, err, want)
		}
	}
}
