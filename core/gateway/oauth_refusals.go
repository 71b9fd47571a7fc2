package gateway

import (
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/time/rate"
)

// refusalLogEvery and refusalLogBurst bound the info lines about refused
// access tokens: a flood of guessed tokens leaves a trace in the log, with a
// count of what was not written, without filling it.
const (
	refusalLogEvery = time.Second
	refusalLogBurst = 5
)

// refusalLog reports refused access tokens at info level, rate-limited.
type refusalLog struct {
	log     hclog.Logger
	limit   *rate.Limiter
	skipped atomic.Int64
}

func newRefusalLog(log hclog.Logger) *refusalLog {
	return &refusalLog{log: log, limit: rate.NewLimiter(rate.Every(refusalLogEvery), refusalLogBurst)}
}

func (l *refusalLog) note(e *tokenError, remote string) {
	if !l.limit.Allow() {
		l.skipped.Add(1)
		return
	}
	args := []any{"reason", e.reason, "remote", remote}
	if e.err != nil {
		args = append(args, "error", clip(e.err.Error()))
	}
	args = append(args, e.signed...)
	if n := l.skipped.Swap(0); n > 0 {
		args = append(args, "more_refused_unlogged", n)
	}
	l.log.Info("access token refused", args...)
}

// maxLoggedText bounds a value from a token in a log line: the header of a
// token nobody signed (its kid, its alg) is whatever its sender wrote, up to
// the size of a request header.
const maxLoggedText = 200

// clip shortens s to maxLoggedText bytes, on a rune boundary, saying how
// long it was.
func clip(s string) string {
	if len(s) <= maxLoggedText {
		return s
	}
	cut := maxLoggedText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}
