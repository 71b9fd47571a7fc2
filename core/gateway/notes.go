package gateway

import (
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// noteQueue holds a session's notifications, in the order they were sent,
// until the transport's single reader writes them. It grows on demand up to
// its limit and drops what comes beyond it, so a slow or absent reader never
// blocks a sender; empty, it holds no storage, which is all an idle session
// costs.
type noteQueue struct {
	mu      sync.Mutex
	pending []queuedNote
	head    int // pending[head:] wait, oldest first
	limit   int
	// wake holds a token while something waits: the reader's signal.
	wake chan struct{}
}

// queuedNote is one waiting notification, or the place of one mcp-go is
// about to send on later.
type queuedNote struct {
	n     mcp.JSONRPCNotification
	later chan mcp.JSONRPCNotification
}

// init readies a queue that holds at most limit notifications.
func (q *noteQueue) init(limit int) {
	q.limit, q.wake = limit, make(chan struct{}, 1)
}

// push queues n without blocking; false means the queue was full and n is
// dropped.
func (q *noteQueue) push(n mcp.JSONRPCNotification) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.add(queuedNote{n: n})
}

// sendChannel is what mcp-go sends a notification on. mcp-go asks for it
// right before each send and never blocks on it, so the queue keeps the
// notification's place from this moment and hands over a channel with room
// for exactly it. A full queue gives a nil channel: mcp-go's send falls to
// its default case and reports the notification dropped, as it does for a
// full channel.
func (q *noteQueue) sendChannel() chan<- mcp.JSONRPCNotification {
	later := make(chan mcp.JSONRPCNotification, 1)
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.add(queuedNote{later: later}) {
		return nil
	}
	return later
}

// ready has a token while notifications wait: the reader selects on it and
// takes one with next each time, as it would from a channel. A token may
// outlive what it announced; next then reports none.
func (q *noteQueue) ready() <-chan struct{} { return q.wake }

// next takes the oldest waiting notification. Only the session's one
// reader calls it.
func (q *noteQueue) next() (mcp.JSONRPCNotification, bool) {
	q.mu.Lock()
	if q.head == len(q.pending) {
		q.mu.Unlock()
		return mcp.JSONRPCNotification{}, false
	}
	e := q.pending[q.head]
	q.pending[q.head] = queuedNote{}
	q.head++
	if q.head == len(q.pending) {
		// Drained: give the storage back, an idle session keeps none.
		q.pending, q.head = nil, 0
	} else {
		q.signal()
	}
	q.mu.Unlock()
	if e.later != nil {
		// mcp-go sends as soon as sendChannel returns, into room kept for it.
		return <-e.later, true
	}
	return e.n, true
}

// add appends e unless limit notifications already wait. Called with mu held.
func (q *noteQueue) add(e queuedNote) bool {
	if len(q.pending)-q.head >= q.limit {
		return false
	}
	if q.head > 0 && len(q.pending) == cap(q.pending) {
		// Reuse the room the reader has freed before growing.
		k := copy(q.pending, q.pending[q.head:])
		clear(q.pending[k:])
		q.pending, q.head = q.pending[:k], 0
	}
	q.pending = append(q.pending, e)
	q.signal()
	return true
}

// signal leaves the reader a token unless one waits already.
func (q *noteQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}
