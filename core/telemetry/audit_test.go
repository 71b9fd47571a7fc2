package telemetry

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/gateway"
	"github.com/toolgate/toolgate/core/metatools"
)

func TestAuditLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "audit.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	// The log is appended to, never truncated.
	if err := os.WriteFile(path, []byte("earlier line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := openAudit(path, 0, 0, 16, hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	a.record(at, metatools.CallRecord{Name: "x_hello_greet", Tool: "x_hello_greet", Plugin: "hello",
		Outcome: metatools.OutcomeOK, ArgumentBytes: 14, Duration: 1234567 * time.Nanosecond},
		gateway.Caller{Principal: gateway.Principal{Issuer: "https://auth.example.com", Subject: "alice", Client: "ide"}, Session: "s1"})
	a.record(at, metatools.CallRecord{Name: "x_nope", Outcome: metatools.OutcomeUnknownTool,
		ArgumentBytes: 2, Duration: 250 * time.Microsecond, Error: "unknown tool \"x_nope\"\nfind tools with filter_tools"},
		gateway.Caller{Principal: gateway.Principal{Issuer: "https://auth.example.com", Subject: "bob", Client: "ide"}, Session: "s2"})
	a.record(at, metatools.CallRecord{Name: strings.Repeat("é", 200), Outcome: metatools.OutcomeUnknownTool}, gateway.Caller{})
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	a.record(at, metatools.CallRecord{Name: "after close"}, gateway.Caller{}) // dropped, not a panic

	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "earlier line\n" +
		`{"time":"2026-03-01T11:00:00.123456789Z","issuer":"https://auth.example.com","subject":"alice","client":"ide","session":"s1","tool":"x_hello_greet","plugin":"hello","outcome":"ok","duration_ms":1.234,"argument_bytes":14}` + "\n" +
		`{"time":"2026-03-01T11:00:00.123456789Z","issuer":"https://auth.example.com","subject":"bob","client":"ide","session":"s2","tool":"x_nope","outcome":"unknown_tool","duration_ms":0.25,"argument_bytes":2,"error":"unknown tool \"x_nope\"\nfind tools with filter_tools"}` + "\n" +
		`{"time":"2026-03-01T11:00:00.123456789Z","tool":"` + strings.Repeat("é", 128) + `…","outcome":"unknown_tool","duration_ms":0,"argument_bytes":0}` + "\n"
	if string(got) != want {
		t.Errorf("audit log:\n%s\nwant:\n%s", got, want)
	}
}

func TestAuditFileIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "audit.jsonl")
	a, err := openAudit(path, 0, 0, 1, hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700 | os.ModeDir} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != want {
			t.Errorf("%s: mode %s, want %s", p, st.Mode(), want)
		}
	}
}

// A writer that is stuck (a pipe nobody reads) costs lines, counted and
// logged, never the caller's time.
func TestAuditDropsInsteadOfBlocking(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Fill the pipe so the writer goroutine blocks on its first line.
	_ = w.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	for {
		if _, err := w.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	_ = w.SetWriteDeadline(time.Time{})

	var logged bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &syncBuffer{b: &logged}, Level: hclog.Error})
	dropped := 0
	a := newAudit(w, 4, log, func() { dropped++ })
	start := time.Now()
	const calls = 1000
	for range calls {
		a.record(time.Now(), metatools.CallRecord{Name: "x_hello_echo", Outcome: metatools.OutcomeOK}, gateway.Caller{})
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("%d records took %s with a stuck writer", calls, elapsed)
	}
	// One line is in the writer's hands, at most four wait in the buffer.
	if dropped < calls-5 || dropped > calls-4 {
		t.Errorf("dropped %d of %d lines, want all but the buffered 4 or 5", dropped, calls)
	}
	go func() { _, _ = bytes.NewBuffer(nil).ReadFrom(r) }() // unstick, so close can finish
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	_ = r.Close()
	if !strings.Contains(logged.String(), "audit log lines lost") {
		t.Errorf("drops not logged: %q", logged.String())
	}
}

func TestAuditLogRotatesBySizeAndKeepsABoundedNumber(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	const maxSize, keep = 1024, 2
	a, err := openAudit(path, maxSize, keep, 128, hclog.NewNullLogger(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		a.record(time.Now(), metatools.CallRecord{Name: fmt.Sprintf("x_hello_call_%03d", i), Outcome: metatools.OutcomeOK}, gateway.Caller{})
	}
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() > maxSize {
			t.Errorf("%s is %d bytes, over the %d limit", e.Name(), info.Size(), maxSize)
		}
	}
	if want := []string{"audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"}; !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	last, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(last), "x_hello_call_099") {
		t.Errorf("the newest line is not in %s:\n%s", path, last)
	}
}
