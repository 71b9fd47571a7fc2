//lint:file-ignore SA1019 2026-07-28 deprecates sampling and roots but still serves them, and these tests drive them.

package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK client, a real client nobody here wrote: it asks for
// 2026-07-28 first (server/discover) and falls back to initialize.

// bearer adds a token to every request of a Go SDK client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// goTransport is how a test reaches a gateway: over HTTP to an in-process
// gateway, or over stdio to the test binary run as `toolgate serve --stdio` is.
type goTransport struct {
	name string
	make func(t *testing.T) gomcp.Transport
}

func goTransports(t *testing.T, mod func(*Options)) []goTransport {
	return []goTransport{
		{"http", func(t *testing.T) gomcp.Transport {
			f := newFixture(t, func(o *Options) {
				o.Tokens = []string{"go-token"}
				if mod != nil {
					mod(o)
				}
			})
			addr, cancel, done := serve(t, f, "127.0.0.1:0")
			t.Cleanup(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("ServeHTTP: %v", err)
				}
			})
			return &gomcp.StreamableClientTransport{
				Endpoint:   "http://" + addr.String() + "/mcp",
				HTTPClient: &http.Client{Transport: bearer{"go-token", http.DefaultTransport}},
				MaxRetries: -1,
			}
		}},
		{"stdio", func(t *testing.T) gomcp.Transport {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"=stdio")
			cmd.Stderr = os.Stderr
			return &gomcp.CommandTransport{Command: cmd}
		}},
	}
}

// goConnect connects a Go SDK client asking for version ("" = its newest).
func goConnect(t *testing.T, tr gomcp.Transport, version string, opts *gomcp.ClientOptions) *gomcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := gomcp.NewClient(&gomcp.Implementation{Name: "go-sdk-test", Version: "1.0.0"}, opts)
	cs, err := c.Connect(ctx, tr, &gomcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func textOf(t *testing.T, res *gomcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("result has %d content blocks: %+v", len(res.Content), res)
	}
	tc, ok := res.Content[0].(*gomcp.TextContent)
	if !ok {
		t.Fatalf("content is %T", res.Content[0])
	}
	return tc.Text
}

func TestGoSDKClientNegotiatesAndCalls(t *testing.T) {
	for _, tr := range goTransports(t, nil) {
		for _, version := range []string{"", "2025-11-25"} {
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			t.Run(tr.name+"/"+want, func(t *testing.T) {
				cs := goConnect(t, tr.make(t), version, nil)
				if got := cs.InitializeResult().ProtocolVersion; got != want {
					t.Fatalf("negotiated %q, want %q", got, want)
				}
				if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "toolgate-test" {
					t.Errorf("server info %+v", info)
				}
				ctx := callCtx(t)
				list, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				var names []string
				for _, tool := range list.Tools {
					names = append(names, tool.Name)
				}
				if !reflect.DeepEqual(names, toolNames) {
					t.Errorf("tools = %v, want %v", names, toolNames)
				}
				res, err := cs.CallTool(ctx, &gomcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "héllo <go>"}})
				if err != nil {
					t.Fatalf("tools/call: %v", err)
				}
				if res.IsError || textOf(t, res) != "héllo <go>" {
					t.Errorf("echo: %+v", res)
				}
				res, err = cs.CallTool(ctx, &gomcp.CallToolParams{Name: "fail"})
				if err != nil || !res.IsError || textOf(t, res) != "backend exploded" {
					t.Errorf("fail: %+v, %v", res, err)
				}
			})
		}
	}
}

// TestGoSDKClientFallsBackWhenOnlyLegacyIsServed: a gateway that does not
// offer 2026-07-28 still serves the client, through initialize.
func TestGoSDKClientFallsBackWhenOnlyLegacyIsServed(t *testing.T) {
	tr := goTransports(t, func(o *Options) { o.ProtocolVersions = []string{"2025-11-25", "2025-06-18"} })[0]
	cs := goConnect(t, tr.make(t), "", nil)
	if got := cs.InitializeResult().ProtocolVersion; got != "2025-11-25" {
		t.Fatalf("negotiated %q, want 2025-11-25", got)
	}
	res, err := cs.CallTool(callCtx(t), &gomcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "legacy"}})
	if err != nil || textOf(t, res) != "legacy" {
		t.Fatalf("echo: %+v, %v", res, err)
	}
}

// answeringClient answers sampling, elicitation and roots the way a person
// and a model behind an IDE would, and records what it was asked.
func answeringClient() *gomcp.ClientOptions {
	return &gomcp.ClientOptions{
		Capabilities: &gomcp.ClientCapabilities{
			RootsV2:     &gomcp.RootCapabilities{ListChanged: true},
			Elicitation: &gomcp.ElicitationCapabilities{Form: &gomcp.FormElicitationCapabilities{}, URL: &gomcp.URLElicitationCapabilities{}},
		},
		CreateMessageWithToolsHandler: func(_ context.Context, req *gomcp.CreateMessageWithToolsRequest) (*gomcp.CreateMessageWithToolsResult, error) {
			text := "sampled: " + req.Params.SystemPrompt
			if len(req.Params.Tools) > 0 {
				text += " with tool " + req.Params.Tools[0].Name
			}
			return &gomcp.CreateMessageWithToolsResult{Model: "test-model", Role: "assistant",
				Content: []gomcp.Content{&gomcp.TextContent{Text: text}}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *gomcp.ElicitRequest) (*gomcp.ElicitResult, error) {
			if req.Params.Mode == "url" {
				return &gomcp.ElicitResult{Action: "accept"}, nil
			}
			return &gomcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	}
}

// allAsks asks for each kind of server-to-client request once.
const allAsks = `{"asks":[
	{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"systemPrompt":"plain","maxTokens":10}},
	{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"systemPrompt":"tooled","maxTokens":10,
		"tools":[{"name":"lookup","inputSchema":{"type":"object"}}]}},
	{"method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}},
	{"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"e-1"}},
	{"method":"roots/list"}
]}`

func TestGoSDKClientAnswersTheBackend(t *testing.T) {
	for _, tr := range goTransports(t, nil) {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				opts := answeringClient()
				c := gomcp.NewClient(&gomcp.Implementation{Name: "go-sdk-test", Version: "1.0.0"}, opts)
				c.AddRoots(&gomcp.Root{URI: "file:///work/project", Name: "project"})
				ctx := callCtx(t)
				cs, err := c.Connect(ctx, tr.make(t), &gomcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer cs.Close()
				var args map[string]any
				if err := json.Unmarshal([]byte(allAsks), &args); err != nil {
					t.Fatal(err)
				}
				res, err := cs.CallTool(ctx, &gomcp.CallToolParams{Name: "ask", Arguments: args})
				if err != nil {
					t.Fatalf("tools/call: %v", err)
				}
				if res.IsError {
					t.Fatalf("ask failed: %s", textOf(t, res))
				}
				var rep askReport
				if err := json.Unmarshal([]byte(textOf(t, res)), &rep); err != nil {
					t.Fatal(err)
				}
				wantCaps := `{"Sampling":true,"SamplingTools":true,"Elicitation":true,"ElicitationForm":true,"ElicitationURL":true,"Roots":true,"RootsListChanged":true}`
				gotCaps, _ := json.Marshal(rep.Caps)
				sameJSON(t, gotCaps, []byte(wantCaps))
				if len(rep.Answers) != 5 {
					t.Fatalf("answers: %s", textOf(t, res))
				}
				for i, want := range []string{`"sampled: plain"`, `"sampled: tooled with tool lookup"`, `"Ada"`, `"accept"`, `"file:///work/project"`} {
					if !strings.Contains(string(rep.Answers[i]), want) {
						t.Errorf("answer %d = %s, want it to contain %s", i, rep.Answers[i], want)
					}
				}
			})
		}
	}
}

// TestGoSDKClientWithoutCapabilitiesIsNotAsked: a client that declared
// nothing is never sent a request; the backend learns so at once.
func TestGoSDKClientWithoutCapabilitiesIsNotAsked(t *testing.T) {
	for _, tr := range goTransports(t, nil) {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(tr.name+"/"+version, func(t *testing.T) {
				cs := goConnect(t, tr.make(t), version, &gomcp.ClientOptions{Capabilities: &gomcp.ClientCapabilities{}})
				for _, method := range []string{"sampling/createMessage", "elicitation/create", "roots/list"} {
					start := time.Now()
					res, err := cs.CallTool(callCtx(t), &gomcp.CallToolParams{Name: "ask",
						Arguments: map[string]any{"asks": []any{map[string]any{"method": method, "params": map[string]any{}}}}})
					if err != nil {
						t.Fatalf("%s: %v", method, err)
					}
					text := textOf(t, res)
					if !res.IsError || !strings.HasPrefix(text, "peer error -32601: ") || !strings.Contains(text, "did not declare") {
						t.Errorf("%s: %s", method, text)
					}
					if d := time.Since(start); d > 2*time.Second {
						t.Errorf("%s took %v", method, d)
					}
				}
			})
		}
	}
}
