package telemetry

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/gateway"
	"github.com/toolgate/toolgate/core/metatools"
)

// auditLine is one call_tool in the audit log. Arguments appear only as their
// size: their values may be secrets. Issuer, subject and client say who made
// the call (for a static token, issuer "token" and the token's position),
// session on which MCP session.
type auditLine struct {
	Time          string  `json:"time"`
	Issuer        string  `json:"issuer,omitempty"`
	Subject       string  `json:"subject,omitempty"`
	Client        string  `json:"client,omitempty"`
	Session       string  `json:"session,omitempty"`
	Tool          string  `json:"tool"`
	Plugin        string  `json:"plugin,omitempty"`
	Outcome       string  `json:"outcome"`
	DurationMS    float64 `json:"duration_ms"`
	ArgumentBytes int     `json:"argument_bytes"`
	Error         string  `json:"error,omitempty"`
}

// Long client-given names and error texts are cut, so one call cannot make
// one huge line.
const (
	maxAuditName  = 256
	maxAuditError = 4096
)

// dropReportEvery limits how often lost lines are logged; each report has the
// count since the last.
const dropReportEvery = 10 * time.Second

// audit appends one JSON line per call to a file from its own goroutine: a
// call hands its line over without waiting, and a line that finds the buffer
// full is counted as dropped instead of slowing the call.
type audit struct {
	log     hclog.Logger
	out     io.WriteCloser
	lines   chan []byte
	dropped func() // counts one lost line in the metrics, if any

	mu     sync.RWMutex // guards closed against record racing close
	closed bool
	done   chan struct{}

	lost       atomic.Int64 // since the last report
	lastReport atomic.Int64 // unix nanoseconds
}

// openAudit opens path for appending (created 0600, and its directory 0700),
// rotated past maxSize bytes (0: never) with keep old files.
func openAudit(path string, maxSize int64, keep, buffer int, log hclog.Logger, dropped func()) (*audit, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	f, err := openRotating(path, maxSize, keep)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return newAudit(f, buffer, log, dropped), nil
}

func newAudit(out io.WriteCloser, buffer int, log hclog.Logger, dropped func()) *audit {
	a := &audit{log: log, out: out, lines: make(chan []byte, buffer), dropped: dropped, done: make(chan struct{})}
	go a.write()
	return a
}

func (a *audit) record(at time.Time, r metatools.CallRecord, who gateway.Caller) {
	b, err := json.Marshal(auditLine{
		Time:          at.UTC().Format(time.RFC3339Nano),
		Issuer:        truncate(who.Issuer, maxAuditName),
		Subject:       truncate(who.Subject, maxAuditName),
		Client:        truncate(who.Client, maxAuditName),
		Session:       who.Session,
		Tool:          truncate(r.Name, maxAuditName),
		Plugin:        r.Plugin,
		Outcome:       string(r.Outcome),
		DurationMS:    math.Round(float64(r.Duration.Microseconds())) / 1000,
		ArgumentBytes: r.ArgumentBytes,
		Error:         truncate(r.Error, maxAuditError),
	})
	if err != nil { // only strings and numbers: cannot fail
		a.drop(err)
		return
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.closed {
		a.drop(nil)
		return
	}
	select {
	case a.lines <- append(b, '\n'):
	default:
		a.drop(nil)
	}
}

// drop counts a lost line and reports the losses at most every
// dropReportEvery.
func (a *audit) drop(cause error) {
	if a.dropped != nil {
		a.dropped()
	}
	a.lost.Add(1)
	now := time.Now().UnixNano()
	last := a.lastReport.Load()
	if now-last < int64(dropReportEvery) || !a.lastReport.CompareAndSwap(last, now) {
		return
	}
	n := a.lost.Swap(0)
	if cause != nil {
		a.log.Error("audit log lines lost", "lines", n, "error", cause)
	} else {
		a.log.Error("audit log lines lost: the writer is behind", "lines", n)
	}
}

func (a *audit) write() {
	defer close(a.done)
	for line := range a.lines {
		if _, err := a.out.Write(line); err != nil {
			a.drop(err)
		}
	}
}

// close writes what is buffered and closes the file.
func (a *audit) close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	close(a.lines)
	a.mu.Unlock()
	<-a.done
	if n := a.lost.Swap(0); n > 0 {
		a.log.Error("audit log lines lost", "lines", n)
	}
	if err := a.out.Close(); err != nil {
		return fmt.Errorf("close audit log: %w", err)
	}
	return nil
}

// truncate cuts s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
