package mcpstdio

import (
	"context"
	"sync"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// queue hands items from the goroutine that reads the server's stdout to a
// consumer, in order and without ever blocking the reader: a slow gRPC stream
// must not hold up every other call's responses.
type queue[T any] struct {
	mu    sync.Mutex
	items []T
	wake  chan struct{} // holds a token while items may be waiting
}

func newQueue[T any]() *queue[T] {
	return &queue[T]{wake: make(chan struct{}, 1)}
}

func (q *queue[T]) push(item T) {
	q.mu.Lock()
	q.items = append(q.items, item)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *queue[T]) take() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// callRoute is a running tool call as the notification reader sees it: where
// its progress and log events go, and which client the server's requests
// during the call go to. Its delivering goroutine starts with the first
// event, so the many calls that report nothing cost no goroutine.
type callRoute struct {
	token  string // progress token sent with the call; empty when none was asked for
	events protov1.CallEvents
	ctx    context.Context // the call's: a request to its client ends with it
	peer   protov1.Peer    // the call's client; nil when none can be asked
	q      *queue[func(protov1.CallEvents)]
	stop   chan struct{}
	done   chan struct{}
	drain  bool // set before stop is closed

	mu      sync.Mutex
	started bool // the goroutine runs, or finish has come and none may start
}

func startRoute(ctx context.Context, token string, events protov1.CallEvents, peer protov1.Peer) *callRoute {
	return &callRoute{token: token, events: events, ctx: ctx, peer: peer, q: newQueue[func(protov1.CallEvents)](),
		stop: make(chan struct{}), done: make(chan struct{})}
}

// push queues an event for the caller, starting delivery if need be.
func (r *callRoute) push(f func(protov1.CallEvents)) {
	r.q.push(f)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started {
		r.started = true
		go r.run()
	}
}

func (r *callRoute) run() {
	defer close(r.done)
	for {
		select {
		case <-r.q.wake:
			r.deliver()
		case <-r.stop:
			if r.drain {
				r.deliver()
			}
			return
		}
	}
}

func (r *callRoute) deliver() {
	for _, f := range r.q.take() {
		f(r.events)
	}
}

// finish ends the route's goroutine, if it has one. With drain, every event
// queued so far is delivered first: the server sent them before its result, so
// the caller sees them before the result too. A cancelled call drops them.
func (r *callRoute) finish(drain bool) {
	r.mu.Lock()
	running := r.started
	r.started = true
	r.mu.Unlock()
	if !running {
		return
	}
	r.drain = drain
	close(r.stop)
	<-r.done
}

// watchers are the Watch streams open on the plugin; each gets every event.
type watchers struct {
	mu   sync.Mutex
	subs map[*queue[protov1.Event]]struct{}
}

func (w *watchers) add() *queue[protov1.Event] {
	q := newQueue[protov1.Event]()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.subs == nil {
		w.subs = map[*queue[protov1.Event]]struct{}{}
	}
	w.subs[q] = struct{}{}
	return q
}

func (w *watchers) remove(q *queue[protov1.Event]) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.subs, q)
}

func (w *watchers) broadcast(e protov1.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for q := range w.subs {
		q.push(e)
	}
}
