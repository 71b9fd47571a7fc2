package wire_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/toolgate/toolgate/sdk/internal/wire"
	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// syncBuffer is a log the server writes from its goroutines while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve serves p over the real gRPC path with its log kept in the returned buffer.
func serve(t *testing.T, p *plugin.Plugin, grace time.Duration) (protov1.Backend, *syncBuffer) {
	t.Helper()
	b, err := p.Backend()
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	server := &wire.Server{Backend: b, OverrunGrace: grace,
		Logger: hclog.New(&hclog.LoggerOptions{Name: p.Name, Output: log, JSONFormat: true})}
	client, srv := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{
		wire.PluginName: &wire.GRPCPlugin{Impl: server},
	})
	t.Cleanup(func() {
		srv.Stop()
		_ = client.Close()
	})
	raw, err := client.Dispense(wire.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(*wire.Client), log
}

// A handler's returned error reaches the model as an error result and the
// operator in the log; an error result the handler chose reaches only the
// model; a panic is logged once, with its stack.
func TestToolFailuresAreLoggedForTheOperator(t *testing.T) {
	b, log := serve(t, &plugin.Plugin{Name: "db", Tools: []plugin.Tool{
		plugin.NewTool("query", "Query.", func(_ context.Context, _ *plugin.Call, in struct {
			How string `json:"how"`
		}) (*plugin.Result, error) {
			switch in.How {
			case "error":
				return nil, errors.New("dial tcp 10.0.0.1:5432: connection refused")
			case "panic":
				panic("nil map")
			}
			return plugin.Errorf("no table %q", in.How), nil
		}),
	}}, 0)
	for how, want := range map[string]string{
		"error": "dial tcp 10.0.0.1:5432: connection refused",
		"panic": `tool "query" panicked: nil map`,
		"users": `no table "users"`,
	} {
		res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "query", Arguments: []byte(`{"how":"` + how + `"}`)}, nil)
		if err != nil || !res.IsError || res.Content[0].Text != want {
			t.Errorf("%s: %+v, %v; want the error result %q", how, res, err, want)
		}
	}
	out := log.String()
	if n := strings.Count(out, `"@message":"tool failed"`); n != 1 || !strings.Contains(out, `"error":"dial tcp 10.0.0.1:5432: connection refused"`) {
		t.Errorf("log has %d \"tool failed\" lines, want one with the returned error:\n%s", n, out)
	}
	if n := strings.Count(out, `"@message":"panic in tool"`); n != 1 || strings.Contains(out, `no table`) {
		t.Errorf("log wants one panic line and nothing of the chosen error result:\n%s", out)
	}
}

// A handler that ignores its ctx holds a goroutine after the call ended; the
// log names the tool.
func TestHandlerOutlivingItsCallIsLogged(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan struct{})
	b, log := serve(t, &plugin.Plugin{Name: "slow", Tools: []plugin.Tool{
		plugin.NewTool("stuck", "Ignore ctx.", func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
			defer close(returned)
			<-release
			return plugin.Text("late"), nil
		}),
		plugin.NewTool("polite", "Watch ctx.", func(ctx context.Context, _ *plugin.Call, _ struct{}) (*plugin.Result, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
	}}, 50*time.Millisecond)
	for _, tool := range []string{"polite", "stuck"} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err := b.CallTool(ctx, &protov1.CallRequest{Name: tool}, nil)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err = %v, want the call's deadline", tool, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(log.String(), "still running") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	<-returned
	out := log.String()
	if strings.Count(out, "still running") != 1 || !strings.Contains(out, `"tool":"stuck"`) || !strings.Contains(out, `"after":"50ms"`) {
		t.Errorf("want one overrun warning, for stuck:\n%s", out)
	}
}

// A Read or Render function's own error reaches the host in its own words,
// without gRPC's "rpc error: code = Unknown desc =" framing.
func TestPluginErrorsKeepTheirWords(t *testing.T) {
	b, _ := serve(t, &plugin.Plugin{Name: "notes",
		Resources: []plugin.Resource{{
			Def: plugin.ResourceDef("notes://index", "index", "", "text/plain"),
			Read: func(context.Context, string) ([]plugin.ResourceContents, error) {
				return nil, errors.New("index file is corrupt")
			},
		}},
		Prompts: []plugin.Prompt{{
			Def: plugin.PromptDef("p", ""),
			Render: func(context.Context, map[string]string) (*plugin.PromptResult, error) {
				panic("render bug")
			},
		}},
	}, 0)
	_, err := b.ReadResource(context.Background(), "notes://index")
	if err == nil || err.Error() != "index file is corrupt" || !errors.Is(err, wire.ErrPlugin) {
		t.Errorf("ReadResource err = %v, want the plugin's own words, matching wire.ErrPlugin", err)
	}
	_, err = b.GetPrompt(context.Background(), "p", nil)
	if err == nil || err.Error() != "plugin panicked in GetPrompt: render bug" {
		t.Errorf("GetPrompt err = %v, want the panic in the plugin's words", err)
	}
}
