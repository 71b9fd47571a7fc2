package mcpstdio_test

import (
	"bytes"
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

// TestFixture drives the server in testdata through what the reference
// servers do not do on demand.
func TestFixture(t *testing.T) {
	runShared(t, fixture(t), []sharedCase{
		{"non-JSON stdout", testFixtureNonJSON},
		{"rich content", testFixtureRichContent},
		{"tools list changed", testFixtureToolsChanged},
		{"prompts list changed", testFixturePromptsChanged},
		{"resource updated", testFixtureResourceUpdated},
		{"log during call", testFixtureLogDuringCall},
		{"log between calls", testFixtureLogBetweenCalls},
		{"cancel reaches server", testFixtureCancelReachesServer},
		{"bad arguments", testFixtureBadArguments},
	})
}

func testFixtureNonJSON(t *testing.T, h *harness) {
	if res := h.call(t, "noise", nil); textOf(res) != "quiet again" {
		t.Fatalf("noise = %+v", res)
	}
	logs := h.logs.String()
	for _, line := range []string{"fixture server starting (not JSON)", "debug: this line is not JSON", `line=42`, `line="[\"debug\", 2]"`} {
		if !strings.Contains(logs, line) {
			t.Errorf("stray stdout line %q not logged:\n%s", line, logs)
		}
	}
}

func testFixtureRichContent(t *testing.T, h *harness) {
	tools, err := h.host.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools, func(tool protov1.Tool) bool { return tool.Name == "rich" })
	if i < 0 {
		t.Fatalf("no rich tool in %v", toolNames(tools))
	}
	rich := tools[i]
	if !rich.Annotations.IsReadOnly() || !rich.Annotations.IsIdempotent() || rich.Annotations.Destructive != nil ||
		!bytes.Contains(rich.OutputSchema, []byte(`"ok"`)) || string(rich.Meta) != `{"example.com/tool":1}` {
		t.Errorf("rich tool definition = %+v", rich)
	}

	res := h.call(t, "rich", nil)
	if len(res.Content) != 5 {
		t.Fatalf("got %d blocks, want 5: %+v", len(res.Content), res.Content)
	}
	text, audio, embedded, empty, link := res.Content[0], res.Content[1], res.Content[2], res.Content[3], res.Content[4]
	if text.Kind != protov1.KindText || text.Text != "plain" ||
		!jsonEqual(text.Annotations, `{"audience":["user"],"priority":0.5}`) || !jsonEqual(text.Meta, `{"example.com/block":"t"}`) {
		t.Errorf("text block = %+v (annotations %s, meta %s)", text, text.Annotations, text.Meta)
	}
	if audio.Kind != protov1.KindAudio || audio.MIMEType != "audio/wav" || string(audio.Data) != "RIFF-not-really-wav" {
		t.Errorf("audio block = %+v", audio)
	}
	if r := embedded.Resource; embedded.Kind != protov1.KindResource || r.IsBlob() || r.Text != "embedded text" ||
		r.MIMEType != "text/plain" || !jsonEqual(r.Meta, `{"example.com/res":true}`) {
		t.Errorf("embedded text resource = %+v", r)
	}
	if r := empty.Resource; empty.Kind != protov1.KindResource || !r.IsBlob() || len(r.Blob) != 0 {
		t.Errorf("empty blob resource = %+v; want a blob of zero bytes", r)
	}
	if l := link.Link; link.Kind != protov1.KindResourceLink || l.URI != "fixture://linked" || l.Name != "linked" ||
		l.Title != "Linked" || l.Description != "a link" || l.MIMEType != "text/markdown" || l.Size != 42 ||
		!jsonEqual(link.Annotations, `{"priority":1}`) {
		t.Errorf("resource link = %+v (annotations %s)", l, link.Annotations)
	}
	if !jsonEqual(res.StructuredContent, `{"ok":true}`) || !jsonEqual(res.Meta, `{"example.com/result":"r"}`) || res.IsError {
		t.Errorf("result: structured %s, meta %s, isError %v", res.StructuredContent, res.Meta, res.IsError)
	}
}

func testFixtureToolsChanged(t *testing.T, h *harness) {
	events := h.watch(t)
	h.call(t, "add-tool", map[string]any{"name": "late-tool"})
	waitEvent(t, events, protov1.EventToolsChanged)
	tools, err := h.host.ListTools(context.Background())
	if err != nil || !slices.Contains(toolNames(tools), "late-tool") {
		t.Errorf("after tools/list_changed: %v, %v; want late-tool listed", toolNames(tools), err)
	}
}

func testFixturePromptsChanged(t *testing.T, h *harness) {
	events := h.watch(t)
	h.call(t, "add-prompt", map[string]any{"name": "late-prompt"})
	waitEvent(t, events, protov1.EventPromptsChanged)
	prompts, err := h.host.ListPrompts(context.Background())
	if err != nil || !slices.ContainsFunc(prompts, func(p protov1.Prompt) bool { return p.Name == "late-prompt" }) {
		t.Errorf("after prompts/list_changed: %+v, %v; want late-prompt listed", prompts, err)
	}
}

func testFixtureResourceUpdated(t *testing.T, h *harness) {
	events := h.watch(t)
	h.call(t, "touch-resource", map[string]any{"uri": "fixture://touched"})
	if e := waitEvent(t, events, protov1.EventResourceUpdated); e.URI != "fixture://touched" {
		t.Errorf("resource updated event = %+v", e)
	}
}

func testFixtureLogDuringCall(t *testing.T, h *harness) {
	events := &plugintest.Events{}
	res, err := h.callWith(t, &protov1.CallRequest{Name: "log-and-answer", Arguments: mustJSON(t, map[string]any{"text": "hi"})}, events)
	if err != nil || textOf(res) != "answered hi" {
		t.Fatalf("log-and-answer = %+v, %v", res, err)
	}
	logs := events.Logs()
	if len(logs) != 1 || logs[0].Level != "warning" || logs[0].Logger != "fixture" || !jsonEqual(logs[0].Data, `{"said":"hi"}`) {
		t.Errorf("call logs = %+v; want the server's one warning, before the result", logs)
	}
}

func testFixtureLogBetweenCalls(t *testing.T, h *harness) {
	events := h.watch(t)
	h.call(t, "log-later", nil)
	e := waitEvent(t, events, protov1.EventLog)
	if e.Log == nil || e.Log.Level != "info" || e.Log.Logger != "fixture" || string(e.Log.Data) != `"later"` {
		t.Errorf("log event = %+v", e.Log)
	}
}

func testFixtureCancelReachesServer(t *testing.T, h *harness) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := h.host.CallTool(ctx, &protov1.CallRequest{Name: "wait-for-cancel"}, &plugintest.Events{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("call = %v; want context.DeadlineExceeded", err)
	}
	// The server learns of it through notifications/cancelled and says so on stderr.
	if !waitFor(5*time.Second, func() bool { return strings.Contains(h.logs.String(), "cancelled request toolgate-") }) {
		t.Errorf("the server never saw the cancellation:\n%s", h.logs.String())
	}
}

func testFixtureBadArguments(t *testing.T, h *harness) {
	// Arguments the tool's schema refuses come back as a failed result, from
	// plugintest as from the gateway, before the server sees them.
	res, err := h.callWith(t, &protov1.CallRequest{Name: "noise", Arguments: json.RawMessage(`[1,2]`)}, &plugintest.Events{})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "at /: got array, want object") {
		t.Errorf("call with array arguments = %+v, %v; want a failed result", res, err)
	}
}

func jsonEqual(got json.RawMessage, want string) bool {
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return bytes.Equal(ab, bb)
}
