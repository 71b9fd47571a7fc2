package gateway

import (
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"golang.org/x/time/rate"

	"github.com/toolgate/toolgate/internal/clip"
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
		args = append(args, "error", clip.Text(e.err.Error(), maxLoggedText))
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
