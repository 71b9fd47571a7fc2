package gateway

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// ServeStdio serves one client over newline-delimited JSON-RPC on in and out.
//
// Requests run concurrently; every request read is answered, also when in
// reaches end of file while calls are still running: ServeStdio then waits for
// them and returns nil. When ctx ends, running calls are cancelled, their
// answers written, and ServeStdio returns nil. A Read blocked on in is then
// abandoned unless in supports SetReadDeadline (the files DetachStdio returns
// do, when they are pipes or sockets). A failed write ends serving with its error.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	se, err := s.newSession(ctx)
	if err != nil {
		return err
	}
	defer s.dropSession(se)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := &lineWriter{w: out, fail: cancel}

	stopNotes := make(chan struct{})
	notesDone := make(chan struct{})
	go func() {
		defer close(notesDone)
		for {
			select {
			case <-se.notes.ready():
				if n, ok := se.notes.next(); ok {
					_ = w.send(n)
				}
			case <-stopNotes:
				return
			case <-se.done:
				return
			}
		}
	}()
	// Every request read gets its answer before ServeStdio returns.
	var calls sync.WaitGroup
	defer func() {
		calls.Wait()
		close(stopNotes)
		<-notesDone
	}()

	lines := make(chan readResult)
	quit := make(chan struct{})
	defer close(quit)
	go readLines(newLineReader(in, s.maxBytes), lines, quit)

	for {
		select {
		case <-ctx.Done():
			if d, ok := in.(interface{ SetReadDeadline(time.Time) error }); ok {
				_ = d.SetReadDeadline(time.Now())
			}
			return w.failure()
		case res := <-lines:
			var big *tooLargeError
			switch {
			case res.err == io.EOF:
				// Calls still running are answered, but the client can
				// answer none of their questions any more.
				se.hearNoMore()
				return nil
			case errors.As(res.err, &big):
				s.log.Warn("stdio request too large", "bytes", big.size, "limit", s.maxBytes)
				_ = w.send(errorResponse(salvageID(big.head, big.tail), codeInvalidRequest, big.Error()))
			case res.err != nil:
				return fmt.Errorf("read stdio: %w", res.err)
			default:
				s.serveLine(ctx, se, w, res.line, &calls)
			}
		}
	}
}

func (s *Server) serveLine(ctx context.Context, se *session, w *lineWriter, line []byte, calls *sync.WaitGroup) {
	env, err := parseEnvelope(line)
	if err != nil {
		_ = w.send(parseErrorResponse(err))
		return
	}
	se.touch()
	if !env.isRequest() {
		// Notifications run in order on the read loop, so notifications/cancelled
		// is seen before anything the client sent after it.
		s.dispatch(ctx, se, line, env, nil)
		return
	}
	if env.Method == string(mcp.MethodInitialize) {
		// Inline, so a client that pipelines after initialize finds the session
		// initialized.
		if resp := s.dispatch(ctx, se, line, env, &requestScope{ctx: ctx}); resp != nil {
			_ = w.send(resp)
		}
		return
	}
	calls.Go(func() {
		cs := &callStream{w: w}
		rs := &requestScope{ctx: ctx, stream: cs, progressToken: env.callParams().Meta.ProgressToken}
		resp := s.dispatch(ctx, se, line, env, rs)
		if resp != nil && !rs.cancelled.Load() {
			cs.settle(ctx)
			_ = w.send(resp)
		}
	})
}

// SettleDelay separates a call's result from the progress lines just before
// it on a line-based transport (stdio here, and toolgate bridge). The
// official TypeScript client handles notifications a microtask after the
// message that carried them but responses at once, so when the last progress
// lines and the result arrive in one read it has already dropped the call's
// progress handler and reports the progress as "unknown token". A read
// boundary between them avoids that. Only progress needs it: log messages go
// to a handler of the session, which outlives the call, and only a client that
// sent a progress token gets progress, so other calls are never delayed.
const SettleDelay = 20 * time.Millisecond

// Settle waits until SettleDelay has passed since a call's last progress line
// was written (zero: it wrote none), or ctx ends.
func Settle(ctx context.Context, lastProgress time.Time) {
	if lastProgress.IsZero() {
		return
	}
	wait := SettleDelay - time.Since(lastProgress)
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// callStream is one request's view of the shared output.
type callStream struct {
	w    *lineWriter
	last atomic.Int64 // unix nanoseconds of the last progress line written
}

func (c *callStream) send(msg any) error {
	err := c.w.send(msg)
	if n, ok := msg.(rpcNotification); ok && n.Method == string(mcp.MethodNotificationProgress) {
		c.last.Store(time.Now().UnixNano())
	}
	return err
}

// settle waits until SettleDelay has passed since the call's last progress line.
func (c *callStream) settle(ctx context.Context) {
	var last time.Time
	if n := c.last.Load(); n != 0 {
		last = time.Unix(0, n)
	}
	Settle(ctx, last)
}

// lineWriter writes one JSON message per line; concurrent senders never
// interleave. The first failed write stops the server through fail.
type lineWriter struct {
	mu   sync.Mutex
	w    io.Writer
	err  error
	fail context.CancelCauseFunc
}

// failure is the write error that stopped serving, or nil.
func (lw *lineWriter) failure() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.err
}

func (lw *lineWriter) send(msg any) error {
	b, err := encodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	b = append(b, '\n')
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if _, err := lw.w.Write(b); err != nil {
		lw.err = fmt.Errorf("write stdio: %w", err)
		lw.fail(lw.err)
		return lw.err
	}
	return nil
}

type readResult struct {
	line []byte
	err  error
}

func readLines(lr *lineReader, out chan<- readResult, quit <-chan struct{}) {
	for {
		line, err := lr.next()
		select {
		case out <- readResult{line: line, err: err}:
		case <-quit:
			return
		}
		if err != nil {
			var big *tooLargeError
			if !errors.As(err, &big) {
				return
			}
		}
	}
}

// tooLargeError is a line longer than the limit. It has been read to its end,
// so the next line is intact; head and tail are kept to find its id.
type tooLargeError struct {
	size, limit int64
	head, tail  []byte
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("request of %d bytes exceeds the limit of %d bytes (gateway.max_request_bytes)", e.size, e.limit)
}

// keepBytes is how much of an oversized line's start and end is kept.
const keepBytes = 4096

type lineReader struct {
	r   *bufio.Reader
	max int64
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-empty line without its line ending, io.EOF at the
// end, or a *tooLargeError for a line over the limit.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.line()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

func (lr *lineReader) line() ([]byte, error) {
	var (
		buf        []byte // the line, while it is within the limit
		size       int64
		head, tail []byte
		over       bool
	)
	for {
		frag, err := lr.r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return nil, err
		}
		size += int64(len(frag))
		if len(head) < keepBytes {
			head = append(head, frag[:min(len(frag), keepBytes-len(head))]...)
		}
		tail = append(tail, frag...)
		if len(tail) > keepBytes {
			tail = append(tail[:0:0], tail[len(tail)-keepBytes:]...)
		}
		if !over {
			buf = append(buf, frag...)
			if int64(len(trimEOL(buf))) > lr.max {
				over, buf = true, nil
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		// A whole line, or the unterminated last one at end of input.
		if err == io.EOF && size == 0 {
			return nil, io.EOF
		}
		if over {
			body := trimEOL(tail)
			return nil, &tooLargeError{size: size - int64(len(tail)-len(body)), limit: lr.max, head: head, tail: body}
		}
		return trimEOL(buf), nil
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
