package prometheus

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// at is a time of the backfilled data, as a tool argument.
func at(offset int) string { return time.Unix(int64(t0+offset), 0).UTC().Format(time.RFC3339) }

// serve runs the plugin over the real gRPC path, configured with cfg.
func serve(t *testing.T, cfg map[string]any) protov1.Backend {
	t.Helper()
	p, a := newPlugin()
	b := plugintest.ServePlugin(t, p)
	t.Cleanup(a.close)
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Configure(context.Background(), raw); err != nil {
		t.Fatalf("configure %s: %v", raw, err)
	}
	return b
}

// serveShared is the plugin pointed at the shared Prometheus.
func serveShared(t *testing.T) protov1.Backend {
	t.Helper()
	return serve(t, map[string]any{"url": sharedProm(t).url})
}

// call runs a tool and returns its result; a transport error fails the test.
func call(t *testing.T, b protov1.Backend, tool string, args map[string]any) *protov1.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := b.CallTool(ctx, &protov1.CallRequest{Name: tool, Arguments: raw}, &plugintest.Events{})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res
}

// ok runs a tool that must succeed and returns its text and structured content.
func ok(t *testing.T, b protov1.Backend, tool string, args map[string]any, into any) string {
	t.Helper()
	res := call(t, b, tool, args)
	text := resultText(res)
	if res.IsError {
		t.Fatalf("%s %v: unexpected error: %s", tool, args, text)
	}
	if into != nil {
		if err := json.Unmarshal(res.StructuredContent, into); err != nil {
			t.Fatalf("%s: structured content %s: %v", tool, res.StructuredContent, err)
		}
	}
	return text
}

// failed runs a tool that must fail and returns its text and error details.
func failed(t *testing.T, b protov1.Backend, tool string, args map[string]any) (string, toolError) {
	t.Helper()
	res := call(t, b, tool, args)
	text := resultText(res)
	if !res.IsError {
		t.Fatalf("%s %v: want an error, got: %s", tool, args, text)
	}
	var out struct {
		Error toolError `json:"error"`
	}
	if len(res.StructuredContent) > 0 {
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			t.Fatalf("error structured content %s: %v", res.StructuredContent, err)
		}
	}
	return text, out.Error
}

func resultText(r *protov1.Result) string {
	var parts []string
	for _, c := range r.Content {
		if c.Kind == protov1.KindText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}
