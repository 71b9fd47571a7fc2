package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// The tools below are small real handlers: the gateway is what is under test.

var (
	imageBytes = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 1, 2, 0xfe, 0xff}
	audioBytes = []byte{'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'A', 'V', 'E', 0x80, 0x7f}
	blobBytes  = []byte{0, 1, 2, 3, 0xfd, 0xfe, 0xff}
)

// kindsResult holds every content kind, with annotations and _meta.
func kindsResult() *protov1.Result {
	return &protov1.Result{
		Content: []protov1.Content{
			{Kind: protov1.KindText, Text: "héllo\nworld <&>",
				Annotations: json.RawMessage(`{"audience":["user","assistant"],"priority":0.5}`),
				Meta:        json.RawMessage(`{"demo/tag":"t1"}`)},
			{Kind: protov1.KindImage, Data: imageBytes, MIMEType: "image/png",
				Annotations: json.RawMessage(`{"lastModified":"2025-01-12T15:00:58Z"}`)},
			{Kind: protov1.KindAudio, Data: audioBytes, MIMEType: "audio/wav"},
			{Kind: protov1.KindResource, Resource: &protov1.ResourceContents{
				URI: "file:///notes.txt", MIMEType: "text/plain", Text: "embedded text"}},
			{Kind: protov1.KindResource, Resource: &protov1.ResourceContents{
				URI: "file:///data.bin", MIMEType: "application/octet-stream", Blob: blobBytes,
				Meta: json.RawMessage(`{"demo/origin":"disk"}`)}},
			{Kind: protov1.KindResourceLink, Link: &protov1.Resource{
				URI: "toolgate://catalog", Name: "catalog", Title: "Catalog", Description: "every tool",
				MIMEType: "application/json", Size: 42}},
		},
		StructuredContent: json.RawMessage(`{"count":6,"kinds":["text","image","audio","resource","resource","resource_link"]}`),
		Meta:              json.RawMessage(`{"demo/plugin":"fixture"}`),
	}
}

// kindsWire is kindsResult as MCP puts it on the wire, written out by hand.
func kindsWire() string {
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf(`{
	"content": [
		{"type":"text","text":"héllo\nworld <&>","annotations":{"audience":["user","assistant"],"priority":0.5},"_meta":{"demo/tag":"t1"}},
		{"type":"image","data":%q,"mimeType":"image/png","annotations":{"lastModified":"2025-01-12T15:00:58Z"}},
		{"type":"audio","data":%q,"mimeType":"audio/wav"},
		{"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"embedded text"}},
		{"type":"resource","resource":{"uri":"file:///data.bin","mimeType":"application/octet-stream","blob":%q,"_meta":{"demo/origin":"disk"}}},
		{"type":"resource_link","uri":"toolgate://catalog","name":"catalog","title":"Catalog","description":"every tool","mimeType":"application/json","size":42}
	],
	"structuredContent":{"count":6,"kinds":["text","image","audio","resource","resource","resource_link"]},
	"_meta":{"demo/plugin":"fixture"}
}`, b64(imageBytes), b64(audioBytes), b64(blobBytes))
}

const catalogURI = "toolgate://catalog"

// fixture is a Server with the test tools and what their handlers observed.
type fixture struct {
	srv *Server
	// cancelled receives the context error the "block" tool saw.
	cancelled chan error
	// started receives a value once "block" has reported its progress.
	started chan struct{}
}

func newFixture(t testing.TB, mod func(*Options)) *fixture {
	f, err := buildFixture(mod)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(f.srv.Close)
	return f
}

func buildFixture(mod func(*Options)) (*fixture, error) {
	f := &fixture{cancelled: make(chan error, 16), started: make(chan struct{}, 16)}
	bTrue, bFalse := true, false
	opts := Options{
		Name:    "toolgate-test",
		Version: "0.0.1",
		UnknownTool: func(name string) string {
			return fmt.Sprintf("%s is reached through call_tool: {\"name\":%q}", name, name)
		},
		Tools: []Tool{
			{Name: "echo", Description: "Echoes its text argument.",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
				Annotations: protov1.Annotations{ReadOnly: &bTrue, OpenWorld: &bFalse},
				Handle: func(_ context.Context, args json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
					var a struct{ Text string }
					if err := json.Unmarshal(args, &a); err != nil {
						return nil, fmt.Errorf("bad arguments: %w", err)
					}
					return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: a.Text}}}, nil
				}},
			{Name: "kinds", Title: "Every kind", Description: "Returns every content kind.",
				Handle: func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
					return kindsResult(), nil
				}},
			{Name: "steps", Description: "Reports progress for each step, then answers.",
				Handle: func(_ context.Context, args json.RawMessage, ev protov1.CallEvents) (*protov1.Result, error) {
					var a struct{ N int }
					_ = json.Unmarshal(args, &a)
					ev.Log(protov1.LogMessage{Level: "info", Logger: "steps", Data: json.RawMessage(`{"starting":true}`)})
					for i := 1; i <= a.N; i++ {
						ev.Progress(protov1.Progress{Progress: float64(i), Total: float64(a.N), Message: fmt.Sprintf("step %d", i)})
					}
					return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: fmt.Sprintf("did %d steps", a.N)}}}, nil
				}},
			{Name: "block", Description: "Reports one progress, then waits until cancelled.",
				Handle: func(ctx context.Context, _ json.RawMessage, ev protov1.CallEvents) (*protov1.Result, error) {
					ev.Progress(protov1.Progress{Progress: 1, Message: "waiting"})
					f.started <- struct{}{}
					select {
					case <-ctx.Done():
						f.cancelled <- ctx.Err()
						return nil, ctx.Err()
					case <-time.After(30 * time.Second):
						return nil, errors.New("block was never cancelled")
					}
				}},
			{Name: "slow", Description: "Answers after a short pause.",
				Handle: func(ctx context.Context, _ json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
					select {
					case <-time.After(200 * time.Millisecond):
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: "slow done"}}}, nil
				}},
			{Name: "fail", Description: "Fails.",
				Handle: func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
					return nil, errors.New("backend exploded")
				}},
			{Name: "explode", Description: "Panics.",
				Handle: func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
					panic("handler bug")
				}},
			{Name: "bignum", Description: "Result with numbers beyond float64 in _meta and structuredContent.",
				Handle: func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
					return &protov1.Result{
						StructuredContent: json.RawMessage(`{"id":12345678901234567890123}`),
						Meta:              json.RawMessage(`{"big":98765432109876543210,"x-unknown":{"nested":[1,2]}}`),
						Content: []protov1.Content{{Kind: protov1.KindText, Text: "n",
							Annotations: json.RawMessage(`{"priority":1,"x-future":{"a":1}}`)}},
					}, nil
				}},
			{Name: "ask", Description: "Asks the calling client each request of asks in turn; answers with what it said.",
				Handle: askClient},
			{Name: "trigger", Description: "Makes the server announce a resource update and a log line.",
				Handle: func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
					f.srv.ResourceUpdated(catalogURI)
					f.srv.NotifyLog("warning", map[string]any{"msg": "catalog changed"})
					return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: "triggered"}}}, nil
				}},
		},
		Resources: []Resource{{
			Def: protov1.Resource{URI: catalogURI, Name: "catalog", Description: "Every tool.", MIMEType: "application/json", Size: -1},
			Read: func(context.Context) ([]protov1.ResourceContents, error) {
				return []protov1.ResourceContents{{URI: catalogURI, MIMEType: "application/json", Text: `{"tools":9}`}}, nil
			},
		}},
	}
	if mod != nil {
		mod(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		return nil, err
	}
	f.srv = srv
	return f, nil
}

// toolNames is the order clients must see tools/list in.
var toolNames = []string{"echo", "kinds", "steps", "block", "slow", "fail", "explode", "bignum", "ask", "trigger"}

// askArgs are the arguments of the "ask" tool: requests for the calling
// client, and how long to wait for each answer (no limit when 0).
type askArgs struct {
	Asks []struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params,omitempty"`
	} `json:"asks"`
	WaitMs int `json:"waitMs,omitempty"`
}

// askReport is what "ask" answers with, as structured content: the client's
// capabilities and its answer to each request.
type askReport struct {
	Caps    protov1.PeerCapabilities `json:"caps"`
	Answers []json.RawMessage        `json:"answers"`
}

// askClient is a backend that asks its client through protov1.PeerFrom, as
// a plugin does. A request that fails ends the call with an error naming its
// code, which the tests read.
func askClient(ctx context.Context, raw json.RawMessage, _ protov1.CallEvents) (*protov1.Result, error) {
	var a askArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("bad arguments: %w", err)
	}
	peer := protov1.PeerFrom(ctx)
	if peer == nil {
		return nil, errors.New("no peer in the call's context")
	}
	rep := askReport{Caps: peer.Capabilities(), Answers: []json.RawMessage{}}
	for _, ask := range a.Asks {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if a.WaitMs > 0 {
			actx, cancel = context.WithTimeout(ctx, time.Duration(a.WaitMs)*time.Millisecond)
		}
		res, err := peer.Request(actx, ask.Method, ask.Params)
		cancel()
		if err != nil {
			var pe *protov1.PeerError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("peer error %d: %s", pe.Code, pe.Message)
			}
			return nil, fmt.Errorf("peer failed: %w", err)
		}
		rep.Answers = append(rep.Answers, res)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return nil, err
	}
	return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: string(b)}}, StructuredContent: b}, nil
}

// syncWriter lets a logger write from the server's goroutines while the test reads.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
