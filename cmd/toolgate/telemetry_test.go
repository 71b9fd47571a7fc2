package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/core/client"
	"github.com/toolgate/toolgate/core/config"
)

// keptSpans is the in-memory exporter without the reset its Shutdown does,
// so the spans outlive the gateway that flushed them.
type keptSpans struct{ *tracetest.InMemoryExporter }

func (keptSpans) Shutdown(context.Context) error { return nil }

// observedGateway runs a gateway in-process with the hello plugin and a
// plugin that answers the trace context of its calls, a token, an audit log
// and spans recorded in memory. stop ends it and waits until it is gone.
func observedGateway(t *testing.T) (base, auditPath string, spans keptSpans, stop func()) {
	t.Helper()
	dir := t.TempDir()
	tracePlugin := filepath.Join(dir, "trace-plugin")
	if out, err := exec.Command("go", "build", "-o", tracePlugin, "./testdata/traceplugin").CombinedOutput(); err != nil {
		t.Fatalf("build trace plugin: %v\n%s", err, out)
	}
	src := fmt.Sprintf(`listen {
  token = "s3cret"
}
gateway {
  state_dir = %q
  audit_log = "audit/calls.jsonl"
}
plugin "hello" {
  path       = %q
  auto_start = true
}
plugin "trace" {
  path       = %q
  auto_start = true
}
`, filepath.Join(dir, "state"), bins.Hello, tracePlugin)
	path := filepath.Join(dir, "toolgate.hcl")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listen.HTTP = "127.0.0.1:0"
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Warn, Output: os.Stderr})
	topts := telemetryOptions(cfg, logger)
	spans = keptSpans{tracetest.NewInMemoryExporter()}
	topts.SpanExporter = spans

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- serveWith(ctx, cfg, topts, logger, nil, nil, func(a net.Addr) { ready <- a }) }()
	stop = func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	select {
	case a := <-ready:
		return "http://" + a.String(), filepath.Join(dir, "audit", "calls.jsonl"), spans, stop
	case err := <-served:
		t.Fatalf("gateway did not start: %v", err)
	}
	return
}

// scrape GETs /metrics with token ("" sends none).
func scrape(t *testing.T, base, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func linesWith(body string, prefixes ...string) []string {
	var out []string
	for line := range strings.SplitSeq(body, "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				out = append(out, line)
				break
			}
		}
	}
	return out
}

func TestMetricsAuditAndTracesOfRealCalls(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	base, auditPath, spans, stop := observedGateway(t)
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	defer http.DefaultClient.CloseIdleConnections()

	// Both plugins running is the first thing the metrics tell.
	running := []string{`toolgate_plugin_state{plugin="hello",state="running"} 1`, `toolgate_plugin_state{plugin="trace",state="running"} 1`}
	for deadline := time.Now().Add(30 * time.Second); ; {
		_, body := scrape(t, base, "s3cret")
		if slices.Equal(linesWith(body, running...), running) && strings.Contains(body, `toolgate_catalog_tools{plugin="hello"} 4`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugins did not start:\n%s", strings.Join(linesWith(body, "toolgate_plugin_state", "toolgate_catalog"), "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}

	ctx := context.Background()
	c, err := client.Connect(ctx, client.Options{URL: base + "/mcp", Token: "s3cret", ReconnectWindow: -1}, "telemetry-test", "1")
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name    string
		args    any
		isError bool
	}{
		{"x_hello_greet", map[string]any{"name": "Ada"}, false},
		{"x_hello_greet", map[string]any{"name": "Bob", "language": "de"}, false},
		{"x_hello_greet", map[string]any{"name": " "}, true},                     // tool_error
		{"x_hello_greet", map[string]any{"name": "Ada", "language": "es"}, true}, // invalid_arguments
		{"x_hello_nope", map[string]any{"secret": "hunter2"}, true},              // unknown_tool
		{"x_trace_traceparent", map[string]any{}, false},
	}
	var traceparent string
	for _, call := range calls {
		res, err := c.CallTool(ctx, call.name, call.args)
		if err != nil {
			t.Fatalf("%s: %v", call.name, err)
		}
		if res.IsError != call.isError {
			t.Fatalf("%s %v: isError %v: %s", call.name, call.args, res.IsError, res.Raw)
		}
		if call.name == "x_trace_traceparent" {
			var out struct{ Content []struct{ Text string } }
			_ = json.Unmarshal(res.Raw, &out)
			traceparent = out.Content[0].Text
		}
	}
	if _, err := c.Meta(ctx, "list_tools", map[string]any{"plugin": "hello"}); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()

	status, _ := scrape(t, base, "")
	if status != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d", status)
	}
	if status, _ := scrape(t, base, "wrong"); status != http.StatusUnauthorized {
		t.Errorf("/metrics with a wrong token: %d", status)
	}
	status, body := scrape(t, base, "s3cret")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d %s", status, body)
	}
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"toolgate_tool_calls_total{", []string{
			`toolgate_tool_calls_total{outcome="invalid_arguments",plugin="hello",tool="x_hello_greet"} 1`,
			`toolgate_tool_calls_total{outcome="ok",plugin="hello",tool="x_hello_greet"} 2`,
			`toolgate_tool_calls_total{outcome="ok",plugin="trace",tool="x_trace_traceparent"} 1`,
			`toolgate_tool_calls_total{outcome="tool_error",plugin="hello",tool="x_hello_greet"} 1`,
			`toolgate_tool_calls_total{outcome="unknown_tool",plugin="",tool=""} 1`,
		}},
		{"toolgate_tool_call_duration_seconds_count{", []string{
			`toolgate_tool_call_duration_seconds_count{plugin=""} 1`,
			`toolgate_tool_call_duration_seconds_count{plugin="hello"} 4`,
			`toolgate_tool_call_duration_seconds_count{plugin="trace"} 1`,
		}},
		{"toolgate_meta_tool_calls_total{", []string{
			// Every meta-tool has its series from the start.
			`toolgate_meta_tool_calls_total{tool="call_tool"} 6`,
			`toolgate_meta_tool_calls_total{tool="describe_prompt"} 0`,
			`toolgate_meta_tool_calls_total{tool="describe_resource"} 0`,
			`toolgate_meta_tool_calls_total{tool="describe_tool"} 0`,
			`toolgate_meta_tool_calls_total{tool="filter_tools"} 0`,
			`toolgate_meta_tool_calls_total{tool="get_prompt"} 0`,
			`toolgate_meta_tool_calls_total{tool="get_resource"} 0`,
			`toolgate_meta_tool_calls_total{tool="list_core_tools"} 0`,
			`toolgate_meta_tool_calls_total{tool="list_prompts"} 0`,
			`toolgate_meta_tool_calls_total{tool="list_resources"} 0`,
			`toolgate_meta_tool_calls_total{tool="list_tools"} 1`,
		}},
		{`toolgate_plugin_state{plugin="hello"`, []string{
			`toolgate_plugin_state{plugin="hello",state="failed"} 0`,
			`toolgate_plugin_state{plugin="hello",state="lazy"} 0`,
			`toolgate_plugin_state{plugin="hello",state="restarting"} 0`,
			`toolgate_plugin_state{plugin="hello",state="running"} 1`,
			`toolgate_plugin_state{plugin="hello",state="starting"} 0`,
			`toolgate_plugin_state{plugin="hello",state="stopped"} 0`,
			`toolgate_plugin_state{plugin="hello",state="stopping"} 0`,
		}},
		{"toolgate_plugin_restarts_total{", []string{
			`toolgate_plugin_restarts_total{plugin="hello"} 0`,
			`toolgate_plugin_restarts_total{plugin="trace"} 0`,
		}},
		{"toolgate_catalog_tools{", []string{
			`toolgate_catalog_tools{plugin="hello"} 4`,
			`toolgate_catalog_tools{plugin="trace"} 1`,
		}},
		{"toolgate_audit_lines_dropped_total ", []string{"toolgate_audit_lines_dropped_total 0"}},
		{"go_goroutines ", []string{"go_goroutines"}},
		{"process_open_fds ", []string{"process_open_fds"}},
	} {
		got := linesWith(body, c.prefix)
		if c.prefix == "go_goroutines " || c.prefix == "process_open_fds " {
			if len(got) != 1 {
				t.Errorf("%s missing", c.prefix)
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.prefix, strings.Join(got, "\n     "), strings.Join(c.want, "\n     "))
		}
	}

	stop() // flushes the audit log and the spans
	stopped = true

	raw, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("hunter2")) || bytes.Contains(raw, []byte("Ada")) {
		t.Errorf("the audit log holds argument values:\n%s", raw)
	}
	if st, _ := os.Stat(auditPath); st.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %s", st.Mode())
	}
	wantAudit := []string{
		`{"argument_bytes":14,"outcome":"ok","plugin":"hello","tool":"x_hello_greet"}`,
		`{"argument_bytes":30,"outcome":"ok","plugin":"hello","tool":"x_hello_greet"}`,
		`{"argument_bytes":12,"error":"name must not be empty","outcome":"tool_error","plugin":"hello","tool":"x_hello_greet"}`,
		`{"argument_bytes":30,"error":"invalid arguments for x_hello_greet: at /language: value must be one of 'en', 'fr', 'de'\nexpected arguments (input schema of x_hello_greet): ` + helloGreetSchema + `","outcome":"invalid_arguments","plugin":"hello","tool":"x_hello_greet"}`,
		`{"argument_bytes":20,"error":"unknown tool \"x_hello_nope\"; did you mean \"x_hello_count\", \"x_hello_echo\", \"x_hello_greet\"? (filter_tools finds tools by what they do)","outcome":"unknown_tool","tool":"x_hello_nope"}`,
		`{"argument_bytes":2,"outcome":"ok","plugin":"trace","tool":"x_trace_traceparent"}`,
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	var session any
	if len(lines) != len(wantAudit) {
		t.Fatalf("%d audit lines, want %d:\n%s", len(lines), len(wantAudit), raw)
	}
	for i, line := range lines {
		var fields map[string]any
		if err := json.Unmarshal([]byte(line), &fields); err != nil {
			t.Fatalf("audit line %d: %v: %s", i, err, line)
		}
		at, err := time.Parse(time.RFC3339Nano, fields["time"].(string))
		if err != nil || time.Since(at) > time.Minute || at.Location() != time.UTC {
			t.Errorf("audit line %d: time %v (%v)", i, fields["time"], err)
		}
		if ms, ok := fields["duration_ms"].(float64); !ok || ms < 0 || ms > 10000 {
			t.Errorf("audit line %d: duration_ms %v", i, fields["duration_ms"])
		}
		// Every call came with the config's first token, on one session.
		if fields["issuer"] != "token" || fields["subject"] != "0" || fields["session"] == "" || (session != nil && fields["session"] != session) {
			t.Errorf("audit line %d: caller %v %v on session %v, want token 0 on one session", i, fields["issuer"], fields["subject"], fields["session"])
		}
		session = fields["session"]
		delete(fields, "time")
		delete(fields, "duration_ms")
		delete(fields, "issuer")
		delete(fields, "subject")
		delete(fields, "session")
		got, _ := json.Marshal(fields)
		if string(got) != wantAudit[i] {
			t.Errorf("audit line %d:\n got %s\nwant %s", i, got, wantAudit[i])
		}
	}

	var callSpans []tracetest.SpanStub
	for _, s := range spans.GetSpans() {
		if s.Name == "call_tool" {
			callSpans = append(callSpans, s)
		}
	}
	if len(callSpans) != len(calls) {
		t.Fatalf("%d call_tool spans for %d calls", len(callSpans), len(calls))
	}
	for i, want := range []struct{ tool, plugin, outcome string }{
		{"x_hello_greet", "hello", "ok"}, {"x_hello_greet", "hello", "ok"}, {"x_hello_greet", "hello", "tool_error"},
		{"x_hello_greet", "hello", "invalid_arguments"}, {"x_hello_nope", "", "unknown_tool"}, {"x_trace_traceparent", "trace", "ok"},
	} {
		attrs := attribute.NewSet(callSpans[i].Attributes...)
		tool, _ := attrs.Value("toolgate.tool")
		plugin, _ := attrs.Value("toolgate.plugin")
		outcome, _ := attrs.Value("toolgate.outcome")
		if tool.AsString() != want.tool || plugin.AsString() != want.plugin || outcome.AsString() != want.outcome {
			t.Errorf("span %d: %v, want %+v", i, callSpans[i].Attributes, want)
		}
		if callSpans[i].Parent.IsValid() {
			t.Errorf("span %d has a parent; without a traceparent from the client the call_tool span is the root of its trace", i)
		}
	}
	last := callSpans[len(callSpans)-1].SpanContext
	if want := fmt.Sprintf("00-%s-%s-01", last.TraceID(), last.SpanID()); traceparent != want {
		t.Errorf("the plugin's call arrived with traceparent %q, want %q: a child of the call_tool span", traceparent, want)
	}
}

// helloGreetSchema is x_hello_greet's input schema as call_tool quotes it.
const helloGreetSchema = `{\"additionalProperties\":false,\"properties\":{\"language\":{\"description\":\"Language of the greeting (default en).\",\"enum\":[\"en\",\"fr\",\"de\"],\"type\":\"string\"},\"name\":{\"description\":\"Who to greet.\",\"type\":\"string\"}},\"required\":[\"name\"],\"type\":\"object\"}`

func TestMetricsOff(t *testing.T) {
	cfg, err := config.Parse([]byte("listen {\n  metrics = false\n}\n"), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listen.HTTP = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	served := make(chan error, 1)
	go func() { served <- serve(ctx, cfg, hclog.NewNullLogger(), nil, nil, func(a net.Addr) { ready <- a }) }()
	a := <-ready
	status, _ := scrape(t, "http://"+a.String(), "")
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if status != http.StatusNotFound {
		t.Errorf("/metrics with metrics = false: %d", status)
	}
}

// withTraceparent sends a W3C trace context with every request, as a traced
// client or an instrumented proxy in front of the gateway does.
type withTraceparent struct{ traceparent string }

func (w withTraceparent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("traceparent", w.traceparent)
	return http.DefaultTransport.RoundTrip(r)
}

// A client that sends a traceparent header gets the call_tool span in its
// own trace, and the plugin's call in it too.
func TestCallSpanContinuesTheClientsTrace(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	base, _, spans, stop := observedGateway(t)
	defer http.DefaultClient.CloseIdleConnections()
	const traceID, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	ctx := context.Background()
	c, err := client.Connect(ctx, client.Options{URL: base + "/mcp", Token: "s3cret", ReconnectWindow: -1,
		HTTPClient: &http.Client{Transport: withTraceparent{"00-" + traceID + "-" + clientSpan + "-01"}}}, "telemetry-test", "1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, "x_trace_traceparent", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(res.Raw, &out); err != nil || len(out.Content) != 1 {
		t.Fatalf("answer %s: %v", res.Raw, err)
	}
	_ = c.Close()
	stop()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()

	checkContinued(t, spans, traceID, clientSpan, out.Content[0].Text)
}

// checkContinued checks that the call_tool span among spans is a child of the
// client's span traceID/clientSpan, and that the plugin's call, which
// answered traceparent, arrived as a child of the call_tool span. It returns
// the span.
func checkContinued(t *testing.T, spans keptSpans, traceID, clientSpan, traceparent string) *tracetest.SpanStub {
	t.Helper()
	var call *tracetest.SpanStub
	for _, s := range spans.GetSpans() {
		if s.Name == "call_tool" {
			call = &s
		}
	}
	if call == nil {
		t.Fatal("no call_tool span")
	}
	if got := call.Parent.TraceID().String() + "/" + call.Parent.SpanID().String(); got != traceID+"/"+clientSpan || !call.Parent.IsRemote() {
		t.Errorf("call_tool span's parent %s (remote %v), want the client's span %s/%s", got, call.Parent.IsRemote(), traceID, clientSpan)
	}
	if want := fmt.Sprintf("00-%s-%s-01", traceID, call.SpanContext.SpanID()); traceparent != want {
		t.Errorf("the plugin's call arrived with traceparent %q, want %q", traceparent, want)
	}
	return call
}

// A client that puts its trace context in the call's _meta (a client on
// stdio has no header to send it in) gets the call_tool span in its trace.
func TestCallSpanContinuesATraceFromMeta(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	base, _, spans, stop := observedGateway(t)
	defer http.DefaultClient.CloseIdleConnections()
	const traceID, clientSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	ctx := context.Background()
	c, err := client.Connect(ctx, client.Options{URL: base + "/mcp", Token: "s3cret", ReconnectWindow: -1}, "telemetry-test", "1")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.Request(ctx, "tools/call", map[string]any{
		"name": "call_tool", "arguments": map[string]any{"name": "x_trace_traceparent", "arguments": map[string]any{}},
		"_meta": map[string]any{"traceparent": "00-" + traceID + "-" + clientSpan + "-01", "tracestate": "client=1"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Content []struct{ Text string } }
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Content) != 1 {
		t.Fatalf("answer %s: %v", raw, err)
	}
	_ = c.Close()
	stop()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()

	if call := checkContinued(t, spans, traceID, clientSpan, out.Content[0].Text); call.SpanContext.TraceState().String() != "client=1" {
		t.Errorf("tracestate %q, want the client's", call.SpanContext.TraceState().String())
	}
}
