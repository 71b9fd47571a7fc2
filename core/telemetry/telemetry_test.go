package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/core/metatools"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// call runs one observed call through tel, ending as rec says.
func call(tel *Telemetry, rec metatools.CallRecord) {
	_, end := tel.CallStarted(context.Background())
	end(rec)
}

// scrape GETs /metrics from a real HTTP server and returns the lines that
// start with one of prefixes.
func scrape(t *testing.T, h http.Handler, prefixes ...string) []string {
	t.Helper()
	ts := httptest.NewServer(h)
	defer ts.Close()
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("scrape: %d %s", resp.StatusCode, body)
	}
	var out []string
	for line := range strings.SplitSeq(string(body), "\n") {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				out = append(out, line)
				break
			}
		}
	}
	return out
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", what, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

func TestMetrics(t *testing.T) {
	plugins := []PluginStatus{{Name: "hello", State: "running", Restarts: 2, Tools: 4}, {Name: "k8s", State: "lazy"}}
	tel, err := New(context.Background(), Options{Metrics: true, Plugins: func() []PluginStatus { return plugins },
		PluginStates: []string{"lazy", "running", "failed"}})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close(context.Background())

	call(tel, metatools.CallRecord{Name: "x_hello_greet", Tool: "x_hello_greet", Plugin: "hello", Outcome: metatools.OutcomeOK, Duration: 3 * time.Millisecond})
	call(tel, metatools.CallRecord{Name: "x_hello_greet", Tool: "x_hello_greet", Plugin: "hello", Outcome: metatools.OutcomeOK, Duration: 2 * time.Second})
	call(tel, metatools.CallRecord{Name: "x_hello_greet", Tool: "x_hello_greet", Plugin: "hello", Outcome: metatools.OutcomeTimeout, Duration: 70 * time.Second})
	call(tel, metatools.CallRecord{Name: "made-up", Outcome: metatools.OutcomeUnknownTool, Duration: time.Millisecond})
	call(tel, metatools.CallRecord{Name: "core_plugin_list", Tool: "core_plugin_list", Outcome: metatools.OutcomeOK, Duration: time.Millisecond})
	handle := tel.MetaTool("list_tools", func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
		return &protov1.Result{}, nil
	})
	for range 3 {
		if _, err := handle(context.Background(), nil, nil); err != nil {
			t.Fatal(err)
		}
	}

	sameLines(t, "calls", scrape(t, tel.Handler(), "toolgate_tool_calls_total{"), []string{
		`toolgate_tool_calls_total{outcome="ok",plugin="",tool="core_plugin_list"} 1`,
		`toolgate_tool_calls_total{outcome="ok",plugin="hello",tool="x_hello_greet"} 2`,
		`toolgate_tool_calls_total{outcome="timeout",plugin="hello",tool="x_hello_greet"} 1`,
		`toolgate_tool_calls_total{outcome="unknown_tool",plugin="",tool=""} 1`,
	})
	sameLines(t, "durations", scrape(t, tel.Handler(), `toolgate_tool_call_duration_seconds_bucket{plugin="hello",le="0.005"}`,
		`toolgate_tool_call_duration_seconds_bucket{plugin="hello",le="2.5"}`, `toolgate_tool_call_duration_seconds_bucket{plugin="hello",le="120"}`,
		`toolgate_tool_call_duration_seconds_bucket{plugin="hello",le="+Inf"}`, "toolgate_tool_call_duration_seconds_count"), []string{
		`toolgate_tool_call_duration_seconds_count{plugin=""} 2`,
		`toolgate_tool_call_duration_seconds_bucket{plugin="hello",le="0.005"} 1`,
		`toolgate_tool_call_duration_seconds_bucket{plugin="hello",le="2.5"} 2`,
		`toolgate_tool_call_duration_seconds_bucket{plugin="hello",le="120"} 3`,
		`toolgate_tool_call_duration_seconds_bucket{plugin="hello",le="+Inf"} 3`,
		`toolgate_tool_call_duration_seconds_count{plugin="hello"} 3`,
	})
	sameLines(t, "meta-tools", scrape(t, tel.Handler(), "toolgate_meta_tool_calls_total{"), []string{
		`toolgate_meta_tool_calls_total{tool="list_tools"} 3`,
	})
	sameLines(t, "plugins", scrape(t, tel.Handler(), "toolgate_plugin_", "toolgate_catalog_tools{"), []string{
		`toolgate_catalog_tools{plugin="hello"} 4`,
		`toolgate_catalog_tools{plugin="k8s"} 0`,
		`toolgate_plugin_restarts_total{plugin="hello"} 2`,
		`toolgate_plugin_restarts_total{plugin="k8s"} 0`,
		`toolgate_plugin_state{plugin="hello",state="failed"} 0`,
		`toolgate_plugin_state{plugin="hello",state="lazy"} 0`,
		`toolgate_plugin_state{plugin="hello",state="running"} 1`,
		`toolgate_plugin_state{plugin="k8s",state="failed"} 0`,
		`toolgate_plugin_state{plugin="k8s",state="lazy"} 1`,
		`toolgate_plugin_state{plugin="k8s",state="running"} 0`,
	})
	plugins[1].State = "failed"
	sameLines(t, "state after a change", scrape(t, tel.Handler(), `toolgate_plugin_state{plugin="k8s"`), []string{
		`toolgate_plugin_state{plugin="k8s",state="failed"} 1`,
		`toolgate_plugin_state{plugin="k8s",state="lazy"} 0`,
		`toolgate_plugin_state{plugin="k8s",state="running"} 0`,
	})
	if got := scrape(t, tel.Handler(), "go_goroutines ", "process_start_time_seconds "); len(got) != 2 {
		t.Errorf("Go and process collectors: %v", got)
	}
}

// Core tools answer in a fraction of a millisecond and a call may be allowed
// an hour: both ends get buckets of their own instead of piling into the
// first or the +Inf one.
func TestCallDurationBucketsSpanSubMillisecondToAnHour(t *testing.T) {
	tel, err := New(context.Background(), Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Close(context.Background())
	for _, d := range []time.Duration{150 * time.Microsecond, 400 * time.Microsecond, 4 * time.Minute, 50 * time.Minute} {
		call(tel, metatools.CallRecord{Name: "core_plugin_list", Tool: "core_plugin_list", Outcome: metatools.OutcomeOK, Duration: d})
	}
	bucket := func(le string) string { return `toolgate_tool_call_duration_seconds_bucket{plugin="",le="` + le + `"}` }
	sameLines(t, "buckets", scrape(t, tel.Handler(), bucket("0.0001")+" ", bucket("0.00025")+" ", bucket("0.0005")+" ",
		bucket("120")+" ", bucket("300")+" ", bucket("3600")+" ", bucket("+Inf")+" "), []string{
		bucket("0.0001") + " 0",
		bucket("0.00025") + " 1",
		bucket("0.0005") + " 2",
		bucket("120") + " 2",
		bucket("300") + " 3",
		bucket("3600") + " 4",
		bucket("+Inf") + " 4",
	})
}

func TestNothingAskedNothingRuns(t *testing.T) {
	tel, err := New(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tel.Handler() != nil {
		t.Error("Handler without Metrics")
	}
	ctx := context.Background()
	got, end := tel.CallStarted(ctx)
	if got != ctx {
		t.Error("CallStarted changed the context without tracing")
	}
	end(metatools.CallRecord{Outcome: metatools.OutcomeOK})
	if err := tel.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestNewFailsOnAnAuditLogItCannotOpen(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), Options{AuditLog: filepath.Join(blocker, "audit.jsonl")})
	if err == nil || !strings.Contains(err.Error(), "audit log") {
		t.Fatalf("New with an audit log under a file: %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger on several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
