package supervisor

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/toolgate/toolgate/sdk/pluginhost"
)

// process is one start of the plugin: the running plugin, which start it is,
// the calls it serves, and why it is being stopped when someone stops it.
type process struct {
	*pluginhost.Plugin
	gen    uint64
	calls  tracker
	cancel func()                 // ends the context the start ran under
	stop   atomic.Pointer[string] // how an operator's stop or a shutdown is described to calls it cuts
	// gone ends when the process exits. Calls hang their cancellation on it
	// with context.AfterFunc: one goroutine per process, none per call.
	gone context.Context
}

func newProcess(p *pluginhost.Plugin, gen uint64, cancel func()) *process {
	gone, exited := context.WithCancel(context.Background())
	go func() {
		<-p.Exited()
		exited()
	}()
	return &process{Plugin: p, gen: gen, cancel: cancel, gone: gone}
}

// stopReason is set when the process is being stopped on purpose; nil while
// only a crash could end it.
func (p *process) stopReason() (string, bool) {
	r := p.stop.Load()
	if r == nil {
		return "", false
	}
	return *r, true
}

// tracker counts the calls running on one process, so a stop can wait for
// them to finish.
type tracker struct {
	mu      sync.Mutex
	n       int
	drained chan struct{} // closed when n reaches 0 after someone asked
}

func (t *tracker) enter() {
	t.mu.Lock()
	t.n++
	t.mu.Unlock()
}

func (t *tracker) leave() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.n == 0 && t.drained != nil {
		close(t.drained)
		t.drained = nil
	}
}

// idle is closed once no call runs.
func (t *tracker) idle() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	if t.drained == nil {
		t.drained = make(chan struct{})
	}
	return t.drained
}
