package plugin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

type kitchenArgs struct {
	Kind string `json:"kind" enum:"all,fail,panic" description:"What to answer."`
}

func kitchenSink() *plugin.Plugin {
	return &plugin.Plugin{
		Name: "sink", Version: "1.2.3",
		Tools: []plugin.Tool{
			plugin.NewTool("sink", "Answer every content kind.", func(ctx context.Context, call *plugin.Call, in kitchenArgs) (*plugin.Result, error) {
				switch in.Kind {
				case "fail":
					return nil, errors.New("backend unreachable")
				case "panic":
					panic("handler bug")
				}
				for i := 1; i <= 5; i++ {
					call.Progress(float64(i), 5, "step")
				}
				call.Log("info", map[string]int{"steps": 5})
				return &plugin.Result{
					Content: []plugin.Content{
						plugin.TextContent("hello"),
						plugin.ImageContent([]byte{0x89, 'P', 'N', 'G', 0, 1, 2}, "image/png"),
						plugin.AudioContent([]byte{'R', 'I', 'F', 'F', 0}, "audio/wav"),
						plugin.TextResource("mem://t", "text/plain", "text body"),
						plugin.BlobResource("mem://b", "application/octet-stream", []byte{0, 255, 0}),
						plugin.ResourceLink("mem://l", "link", "a link", "text/plain"),
						{Kind: protov1.KindText, Text: "annotated", Annotations: json.RawMessage(`{"priority":1}`), Meta: json.RawMessage(`{"k":"v"}`)},
					},
					StructuredContent: json.RawMessage(`{"ok":true}`),
					Meta:              json.RawMessage(`{"trace":"x"}`),
				}, nil
			}),
		},
		Resources: []plugin.Resource{{
			Def: plugin.ResourceDef("mem://blob", "blob", "", "application/octet-stream"),
			Read: func(context.Context, string) ([]plugin.ResourceContents, error) {
				return []plugin.ResourceContents{{URI: "mem://blob", Blob: []byte{}}}, nil
			},
		}},
		Prompts: []plugin.Prompt{{
			Def: plugin.PromptDef("p", "", plugin.PromptArgument{Name: "who", Required: true}),
			Render: func(_ context.Context, args map[string]string) (*plugin.PromptResult, error) {
				return &plugin.PromptResult{Messages: []plugin.PromptMessage{{Role: "user", Content: plugin.TextContent("hi " + args["who"])}}}, nil
			},
		}},
		Configure: func(_ context.Context, raw json.RawMessage) error {
			var cfg struct {
				URL     string `json:"url"`
				Timeout int    `json:"timeout"`
			}
			return plugin.DecodeConfig(raw, &cfg)
		},
	}
}

func call(t *testing.T, b protov1.Backend, kind string, ev protov1.CallEvents) *protov1.Result {
	t.Helper()
	res, err := b.CallTool(context.Background(), &protov1.CallRequest{
		Name: "sink", Arguments: json.RawMessage(`{"kind":"` + kind + `"}`), WantProgress: true}, ev)
	if err != nil {
		t.Fatalf("CallTool(%s): %v", kind, err)
	}
	return res
}

func TestEveryContentKindCrossesIntact(t *testing.T) {
	b := plugintest.ServePlugin(t, kitchenSink())
	ev := &plugintest.Events{}
	res := call(t, b, "all", ev)

	want := kitchenSink()
	wantRes, _ := want.Tools[0].Handler(context.Background(), &plugin.Call{Arguments: json.RawMessage(`{"kind":"all"}`)})
	if len(res.Content) != len(wantRes.Content) {
		t.Fatalf("got %d content blocks, want %d", len(res.Content), len(wantRes.Content))
	}
	for i, got := range res.Content {
		w := wantRes.Content[i]
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(gj, wj) {
			t.Errorf("block %d (%s):\n got %s\nwant %s", i, w.Kind, gj, wj)
		}
	}
	if string(res.StructuredContent) != `{"ok":true}` || string(res.Meta) != `{"trace":"x"}` || res.IsError {
		t.Errorf("structured=%s meta=%s isError=%v", res.StructuredContent, res.Meta, res.IsError)
	}
	prog := ev.ProgressReports()
	if len(prog) != 5 {
		t.Fatalf("got %d progress reports, want 5", len(prog))
	}
	for i, p := range prog {
		if p.Progress != float64(i+1) || p.Total != 5 {
			t.Errorf("progress %d = %+v, want %d/5 in order", i, p, i+1)
		}
	}
	if logs := ev.Logs(); len(logs) != 1 || string(logs[0].Data) != `{"steps":5}` {
		t.Errorf("logs = %+v", logs)
	}
}

func TestHandlerErrorsAndPanicsBecomeErrorResults(t *testing.T) {
	b := plugintest.ServePlugin(t, kitchenSink())
	for kind, want := range map[string]string{"fail": "backend unreachable", "panic": `tool "sink" panicked: handler bug`} {
		res := call(t, b, kind, nil)
		if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, want) {
			t.Errorf("%s: got %+v, want isError containing %q", kind, res, want)
		}
	}
	// The plugin still serves after a panic.
	if res := call(t, b, "all", nil); res.IsError {
		t.Errorf("call after panic failed: %+v", res)
	}
}

func TestBadArgumentsAndUnknownTool(t *testing.T) {
	b := plugintest.ServePlugin(t, kitchenSink())
	res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "sink", Arguments: json.RawMessage(`{"kind":1}`)}, nil)
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "invalid arguments for sink") {
		t.Errorf("bad args: res=%+v err=%v", res, err)
	}
	_, err = b.CallTool(context.Background(), &protov1.CallRequest{Name: "nope"}, nil)
	if !errors.Is(err, protov1.ErrNotFound) || err.Error() != `tool "nope": not found` {
		t.Errorf("unknown tool: err = %v, want ErrNotFound reading once `tool \"nope\": not found`", err)
	}
}

func TestConfigureReportsFieldPaths(t *testing.T) {
	b := plugintest.ServePlugin(t, kitchenSink())
	tests := []struct {
		config string
		want   []protov1.FieldError
	}{
		{`{"url":"http://x","timeout":3}`, nil},
		{`{"ulr":"http://x"}`, []protov1.FieldError{{Path: "ulr", Message: `unknown setting; did you mean "url"?`}}},
		{`{"url":"http://x","timeout":"soon"}`, []protov1.FieldError{{Path: "timeout", Message: "expected an integer, got a string"}}},
	}
	for _, tt := range tests {
		err := b.Configure(context.Background(), json.RawMessage(tt.config))
		var ce *protov1.ConfigError
		switch {
		case tt.want == nil && err != nil:
			t.Errorf("%s: unexpected error %v", tt.config, err)
		case tt.want != nil && !errors.As(err, &ce):
			t.Errorf("%s: err = %v, want ConfigError", tt.config, err)
		case tt.want != nil && (len(ce.Fields) != len(tt.want) || ce.Fields[0] != tt.want[0]):
			t.Errorf("%s: fields = %+v, want %+v", tt.config, ce.Fields, tt.want)
		}
	}
}

func TestPluginWithoutConfigureRefusesSettings(t *testing.T) {
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "bare"})
	err := b.Configure(context.Background(), json.RawMessage(`{"x":1}`))
	var ce *protov1.ConfigError
	if !errors.As(err, &ce) || ce.Fields[0].Path != "x" {
		t.Fatalf("err = %v, want a field error at x", err)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	b := plugintest.ServePlugin(t, kitchenSink())
	ctx := context.Background()
	rs, err := b.ListResources(ctx)
	if err != nil || len(rs) != 1 || rs[0].URI != "mem://blob" || rs[0].Size != -1 {
		t.Fatalf("ListResources = %+v, %v", rs, err)
	}
	cs, err := b.ReadResource(ctx, "mem://blob")
	if err != nil || len(cs) != 1 || !cs[0].IsBlob() {
		t.Fatalf("ReadResource = %+v, %v; want an empty blob that stays a blob", cs, err)
	}
	if _, err := b.ReadResource(ctx, "mem://none"); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("ReadResource(unknown) err = %v", err)
	}
	pr, err := b.GetPrompt(ctx, "p", map[string]string{"who": "ada"})
	if err != nil || pr.Messages[0].Content.Text != "hi ada" {
		t.Fatalf("GetPrompt = %+v, %v", pr, err)
	}
	if _, err := b.GetPrompt(ctx, "p", nil); !errors.Is(err, protov1.ErrInvalidArgument) {
		t.Errorf("GetPrompt without required arg: err = %v", err)
	}
	info, err := b.GetInfo(ctx)
	if err != nil || info.Name != "sink" || info.Version != "1.2.3" || !info.Capabilities.Tools || !info.Capabilities.Prompts {
		t.Errorf("GetInfo = %+v, %v", info, err)
	}
}

func TestCancelReachesHandler(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "slow", Tools: []plugin.Tool{
		plugin.NewTool("wait", "Wait for cancellation.", func(ctx context.Context, _ *plugin.Call, _ struct{}) (*plugin.Result, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return nil, ctx.Err()
		}),
	}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	if _, err := b.CallTool(ctx, &protov1.CallRequest{Name: "wait"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("handler saw %v", err)
	}
}

func TestDefinitionErrors(t *testing.T) {
	noop := func(context.Context, *plugin.Call) (*plugin.Result, error) { return nil, nil }
	for name, p := range map[string]*plugin.Plugin{
		"no name":   {},
		"duplicate": {Name: "d", Tools: []plugin.Tool{{Def: protov1.Tool{Name: "a"}, Handler: noop}, {Def: protov1.Tool{Name: "a"}, Handler: noop}}},
		"handler":   {Name: "h", Tools: []plugin.Tool{{Def: protov1.Tool{Name: "a"}}}},
		"schema":    {Name: "s", Tools: []plugin.Tool{{Def: protov1.Tool{Name: "a", InputSchema: json.RawMessage("{")}, Handler: noop}}},
	} {
		if _, err := p.Backend(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A handler that returns neither a result nor an error has a bug: the model
// is told the call failed, not that it succeeded with nothing to say.
func TestNilResultIsAFailure(t *testing.T) {
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "forgetful", Tools: []plugin.Tool{
		plugin.NewTool("save", "Save.", func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
			return nil, nil
		}),
	}})
	res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "save"}, nil)
	if err != nil || !res.IsError || len(res.Content) != 1 || res.Content[0].Text != `tool "save" returned no result` {
		t.Fatalf("CallTool = %+v, %v; want an error result saying the tool returned no result", res, err)
	}
}

// MCP names its levels "warning" and "error"; hclog's "warn" and "err" (in
// any case) must not reach a client as "info", below what it asked to see.
func TestLogLevelsReachTheClientAsMCPLevels(t *testing.T) {
	levels := []string{"warn", "WARNING", "err", "Error", "trace", "notice", "loud"}
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "logs", Tools: []plugin.Tool{
		plugin.NewTool("log", "Log at every level.", func(_ context.Context, call *plugin.Call, _ struct{}) (*plugin.Result, error) {
			for _, l := range levels {
				call.Log(l, l)
			}
			return plugin.Text("logged"), nil
		}),
	}})
	ev := &plugintest.Events{}
	if _, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "log"}, ev); err != nil {
		t.Fatal(err)
	}
	want := []string{"warning", "warning", "error", "error", "debug", "notice", "info"}
	logs := ev.Logs()
	if len(logs) != len(want) {
		t.Fatalf("got %d log messages, want %d", len(logs), len(want))
	}
	for i, l := range logs {
		if l.Level != want[i] {
			t.Errorf("Log(%q) arrived at level %q, want %q", levels[i], l.Level, want[i])
		}
	}
}

// A misspelt prompt argument is refused with the name meant, not dropped.
func TestPromptRefusesUnknownArguments(t *testing.T) {
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "notes", Prompts: []plugin.Prompt{{
		Def: plugin.PromptDef("summarize", "", plugin.PromptArgument{Name: "tag", Required: true}, plugin.PromptArgument{Name: "style"}),
		Render: func(_ context.Context, args map[string]string) (*plugin.PromptResult, error) {
			return &plugin.PromptResult{Messages: []plugin.PromptMessage{{Role: "user", Content: plugin.TextContent(args["style"])}}}, nil
		},
	}}})
	_, err := b.GetPrompt(context.Background(), "summarize", map[string]string{"tag": "work", "stlye": "brief"})
	if !errors.Is(err, protov1.ErrInvalidArgument) || !strings.HasPrefix(err.Error(), `prompt "summarize": unknown argument "stlye"; did you mean "style"?`) {
		t.Errorf("err = %v, want an invalid argument naming stlye and style", err)
	}
	// The misspelling is named even when it is why a required one is missing.
	_, err = b.GetPrompt(context.Background(), "summarize", map[string]string{"tga": "work"})
	if err == nil || !strings.Contains(err.Error(), `unknown argument "tga"; did you mean "tag"?`) {
		t.Errorf("misspelt required argument: err = %v", err)
	}
	if _, err := b.GetPrompt(context.Background(), "summarize", map[string]string{"tag": "work", "style": "brief"}); err != nil {
		t.Errorf("declared arguments: %v", err)
	}
}
