package gateway

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// postStream answers one POST: plain JSON, or an event stream as soon as the
// request sends something before its response.
type postStream struct {
	mu   sync.Mutex
	w    http.ResponseWriter
	rc   *http.ResponseController
	sse  bool
	done bool
	err  error // the write that failed: the stream is lost
}

var errStreamDone = errors.New("request already answered")

func (p *postStream) send(msg any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return errStreamDone
	}
	if p.err != nil {
		return p.err
	}
	if !p.sse {
		p.w.Header().Set("Content-Type", "text/event-stream")
		p.w.Header().Set("Cache-Control", "no-cache")
		p.w.WriteHeader(http.StatusOK)
		p.sse = true
	}
	_ = p.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	err := writeEvent(p.w, msg)
	if err == nil {
		err = p.rc.Flush()
	}
	p.err = err
	return err
}

// finish writes the response, with status when it is plain JSON. A
// cancelled call gets none, as MCP asks: the stream just ends, or the POST
// is acknowledged with 202.
func (p *postStream) finish(resp any, cancelled bool, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	switch {
	case resp == nil || cancelled:
		if !p.sse {
			p.w.WriteHeader(http.StatusAccepted)
		}
	case p.sse:
		if p.err == nil {
			_ = p.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			if writeEvent(p.w, resp) == nil {
				_ = p.rc.Flush()
			}
		}
	default:
		p.writeJSON(status, resp)
	}
	// The connection may serve another request: not under this deadline.
	_ = p.rc.SetWriteDeadline(time.Time{})
}

// jsonPiece is how much of a plain JSON answer is written under one
// streamWriteTimeout.
const jsonPiece = 64 << 10

// writeJSON writes a plain JSON answer a piece at a time, each under
// streamWriteTimeout, as events are: a client that reads nothing of a large
// result loses it instead of holding the handler, its connection and the
// result for ever, and one that reads slowly but steadily gets it all. The
// length is given, so nothing is left to write once the last piece is out.
func (p *postStream) writeJSON(status int, msg any) {
	b, err := encodeMessage(msg)
	if err != nil {
		http.Error(p.w, fmt.Sprintf("encode response: %v", err), http.StatusInternalServerError)
		return
	}
	b = append(b, '\n')
	p.w.Header().Set("Content-Type", "application/json")
	p.w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	p.w.WriteHeader(status)
	for len(b) > 0 {
		n := min(len(b), jsonPiece)
		_ = p.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := p.w.Write(b[:n]); err != nil {
			return
		}
		if err := p.rc.Flush(); err != nil {
			return
		}
		b = b[n:]
	}
}

func writeEvent(w io.Writer, msg any) error {
	b, err := encodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode event: %w", err)
	}
	_, err = fmt.Fprintf(w, "event: message\ndata: %s\n\n", b)
	return err
}
