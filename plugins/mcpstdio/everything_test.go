package mcpstdio_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// TestEverything runs its subtests against one server-everything, so the
// suite pays its start-up once; none of them changes the server's state.
func TestEverything(t *testing.T) {
	runShared(t, everything(t), []sharedCase{
		{"lists", testEverythingLists},
		{"info", testEverythingInfo},
		{"echo", testEverythingEcho},
		{"image", testEverythingImage},
		{"blob reference", testEverythingBlobReference},
		{"resource links", testEverythingResourceLinks},
		{"structured content", testEverythingStructured},
		{"unknown tool", testEverythingUnknownTool},
		{"progress", testEverythingProgress},
		{"cancel", testEverythingCancel},
		{"resources", testEverythingResources},
		{"prompts", testEverythingPrompts},
		{"concurrent calls", testEverythingConcurrent},
	})
}

func testEverythingLists(t *testing.T, h *harness) {
	ctx := context.Background()
	tools, err := h.host.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 17 is what server-everything registers for a client that declares
	// roots, sampling and elicitation, and tasks with no task-augmented
	// requests of its own (13 without any); it registers them after
	// initialize.
	if len(tools) != 17 {
		t.Fatalf("got %d tools, want 17: %v", len(tools), toolNames(tools))
	}
	for _, want := range []string{"echo", "get-tiny-image", "trigger-long-running-operation", "get-structured-content"} {
		if !slices.Contains(toolNames(tools), want) {
			t.Errorf("tool %q missing from %v", want, toolNames(tools))
		}
	}
	i := slices.IndexFunc(tools, func(tool protov1.Tool) bool { return tool.Name == "get-structured-content" })
	if len(tools[i].OutputSchema) == 0 || !bytes.Contains(tools[i].InputSchema, []byte(`"location"`)) {
		t.Errorf("get-structured-content schemas lost: in %s out %s", tools[i].InputSchema, tools[i].OutputSchema)
	}
	resources, err := h.host.ListResources(ctx)
	if err != nil || len(resources) != 7 {
		t.Errorf("resources: %d, %v; want 7", len(resources), err)
	}
	templates, err := h.host.ListResourceTemplates(ctx)
	if err != nil || len(templates) != 2 {
		t.Errorf("templates: %d, %v; want 2", len(templates), err)
	}
	prompts, err := h.host.ListPrompts(ctx)
	if err != nil || len(prompts) != 4 {
		t.Errorf("prompts: %d, %v; want 4", len(prompts), err)
	}
	j := slices.IndexFunc(prompts, func(p protov1.Prompt) bool { return p.Name == "args-prompt" })
	if j < 0 || len(prompts[j].Arguments) != 2 || !prompts[j].Arguments[0].Required {
		t.Errorf("args-prompt arguments: %+v", prompts)
	}
}

func testEverythingInfo(t *testing.T, h *harness) {
	info, err := h.host.GetInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := info.Capabilities
	if info.Name != "mcp-stdio" || !c.Tools || !c.Resources || !c.Prompts || !c.Watch || !c.Progress {
		t.Errorf("info = %+v", info)
	}
}

func testEverythingEcho(t *testing.T, h *harness) {
	res := h.call(t, "echo", map[string]any{"message": "héllo\nworld"})
	if res.IsError || textOf(res) != "Echo: héllo\nworld" {
		t.Errorf("echo = %+v", res)
	}
}

func testEverythingImage(t *testing.T, h *harness) {
	res := h.call(t, "get-tiny-image", nil)
	i := slices.IndexFunc(res.Content, func(c protov1.Content) bool { return c.Kind == protov1.KindImage })
	if i < 0 {
		t.Fatalf("no image in %+v", res.Content)
	}
	img := res.Content[i]
	if img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("image: %s, %d bytes starting %q; want raw PNG bytes", img.MIMEType, len(img.Data), img.Data[:min(8, len(img.Data))])
	}
}

func testEverythingBlobReference(t *testing.T, h *harness) {
	res := h.call(t, "get-resource-reference", map[string]any{"resourceType": "Blob", "resourceId": 2})
	i := slices.IndexFunc(res.Content, func(c protov1.Content) bool { return c.Kind == protov1.KindResource })
	if i < 0 {
		t.Fatalf("no embedded resource in %+v", res.Content)
	}
	r := res.Content[i].Resource
	if r.URI != "demo://resource/dynamic/blob/2" || !r.IsBlob() || r.Text != "" {
		t.Fatalf("resource = %+v; want the blob of resource 2", r)
	}
	// The server's blob is base64 of this sentence; the bytes must arrive decoded.
	if !bytes.HasPrefix(r.Blob, []byte("Resource 2: This is a base64 blob")) {
		t.Errorf("blob = %q; want raw bytes, not base64", r.Blob)
	}
}

func testEverythingResourceLinks(t *testing.T, h *harness) {
	res := h.call(t, "get-resource-links", nil)
	var links []*protov1.Resource
	for _, c := range res.Content {
		if c.Kind == protov1.KindResourceLink {
			links = append(links, c.Link)
		}
	}
	if len(links) == 0 {
		t.Fatalf("no resource links in %+v", res.Content)
	}
	l := links[0]
	if !strings.HasPrefix(l.URI, "demo://resource/dynamic/") || l.Name == "" || l.MIMEType != "text/plain" || l.Description == "" || l.Size != -1 {
		t.Errorf("link = %+v", l)
	}
}

func testEverythingStructured(t *testing.T, h *harness) {
	res := h.call(t, "get-structured-content", map[string]any{"location": "New York"})
	if res.IsError || !bytes.Contains(res.StructuredContent, []byte(`"temperature"`)) {
		t.Errorf("structured content = %s (isError %v)", res.StructuredContent, res.IsError)
	}
}

func testEverythingUnknownTool(t *testing.T, h *harness) {
	res := h.call(t, "no-such-tool", nil)
	if !res.IsError || !strings.Contains(textOf(res), "no-such-tool") {
		t.Errorf("unknown tool = %+v; want the server's isError answer", res)
	}
}

func testEverythingProgress(t *testing.T, h *harness) {
	events := &plugintest.Events{}
	start := time.Now()
	res, err := h.callWith(t, &protov1.CallRequest{Name: "trigger-long-running-operation",
		Arguments: mustJSON(t, map[string]any{"duration": 2, "steps": 4}), WantProgress: true}, events)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	reports := events.ProgressReports()
	if len(reports) != 4 {
		t.Fatalf("got %d progress reports, want 4: %+v", len(reports), reports)
	}
	for i, p := range reports {
		if p.Progress != float64(i+1) || p.Total != 4 {
			t.Errorf("report %d = %+v; want %d of 4, in order", i, p, i+1)
		}
	}
	t.Logf("long-running operation with progress took %v", time.Since(start).Round(time.Millisecond))
}

// signalEvents reports the first progress report on a channel.
type signalEvents struct {
	plugintest.Events
	once  sync.Once
	first chan struct{}
}

func (e *signalEvents) Progress(p protov1.Progress) {
	e.Events.Progress(p)
	e.once.Do(func() { close(e.first) })
}

func testEverythingCancel(t *testing.T, h *harness) {
	before := goleak.IgnoreCurrent()
	events := &signalEvents{first: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		// The server sends progress after the cancellation and never answers.
		_, err := h.host.CallTool(ctx, &protov1.CallRequest{Name: "trigger-long-running-operation",
			Arguments: mustJSON(t, map[string]any{"duration": 30, "steps": 30}), WantProgress: true}, events)
		done <- err
	}()
	select {
	case <-events.first:
	case <-time.After(15 * time.Second):
		t.Fatal("no progress within 15s")
	}
	cancelled := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call returned %v; want context.Canceled", err)
		}
		t.Logf("cancelled call returned after %v", time.Since(cancelled).Round(time.Microsecond))
		if d := time.Since(cancelled); d > 2*time.Second {
			t.Errorf("cancelled call took %v to return", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	if !waitFor(5*time.Second, func() bool { r, c := h.b.Tracked(); return r == 0 && c == 0 }) {
		r, c := h.b.Tracked()
		t.Errorf("after cancel the backend still tracks %d progress routes, %d calls", r, c)
	}
	goleak.VerifyNone(t, before)
	// The server keeps reporting on the cancelled call; those reports go nowhere
	// and the server goes on answering.
	time.Sleep(1500 * time.Millisecond)
	if res := h.call(t, "echo", map[string]any{"message": "still here"}); textOf(res) != "Echo: still here" {
		t.Errorf("echo after cancel = %+v", res)
	}
}

func testEverythingResources(t *testing.T, h *harness) {
	ctx := context.Background()
	text, err := h.host.ReadResource(ctx, "demo://resource/static/document/architecture.md")
	if err != nil || len(text) != 1 || text[0].IsBlob() || !strings.Contains(text[0].Text, "#") {
		t.Errorf("text resource = %+v, %v", text, err)
	}
	blob, err := h.host.ReadResource(ctx, "demo://resource/dynamic/blob/1")
	if err != nil || len(blob) != 1 || !blob[0].IsBlob() || !bytes.HasPrefix(blob[0].Blob, []byte("Resource 1:")) {
		t.Errorf("blob resource = %+v, %v", blob, err)
	}
	// server-everything's own messages start "MCP error -32602: "; the
	// error says so once, not twice.
	if _, err := h.host.ReadResource(ctx, "demo://no/such/thing"); err == nil || strings.Count(err.Error(), "MCP error -32602") != 1 {
		t.Errorf("unknown resource: %v; want the server's error with its code once", err)
	}
}

func testEverythingPrompts(t *testing.T, h *harness) {
	ctx := context.Background()
	simple, err := h.host.GetPrompt(ctx, "simple-prompt", nil)
	if err != nil || len(simple.Messages) == 0 || simple.Messages[0].Content.Kind != protov1.KindText {
		t.Fatalf("simple-prompt = %+v, %v", simple, err)
	}
	args, err := h.host.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Lyon", "state": "Rhône"})
	if err != nil || !strings.Contains(args.Messages[0].Content.Text, "Lyon") {
		t.Errorf("args-prompt = %+v, %v", args, err)
	}
	res, err := h.host.GetPrompt(ctx, "resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "1"})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Messages, func(m protov1.PromptMessage) bool { return m.Content.Kind == protov1.KindResource })
	if i < 0 || res.Messages[i].Content.Resource.URI != "demo://resource/dynamic/text/1" {
		t.Errorf("resource-prompt = %+v", res)
	}
	if _, err := h.host.GetPrompt(ctx, "no-such-prompt", nil); err == nil || strings.Count(err.Error(), "MCP error -32602") != 1 {
		t.Errorf("unknown prompt: %v; want the server's error with its code once", err)
	}
}

func testEverythingConcurrent(t *testing.T, h *harness) {
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := fmt.Sprintf("call %d", i)
			res, err := h.host.CallTool(context.Background(), &protov1.CallRequest{Name: "echo",
				Arguments: mustJSON(t, map[string]any{"message": msg})}, &plugintest.Events{})
			if err != nil {
				errs <- err
			} else if got := textOf(res); got != "Echo: "+msg {
				errs <- fmt.Errorf("call %d got %q", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
