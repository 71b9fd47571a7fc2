package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// snapshot is what readers see: replaced whole on every transition, with a
// channel closed at the next one so waiters wake.
type snapshot struct {
	status  Status
	plugin  *process // non-nil only when Running
	changed chan struct{}
}

type cmdKind int

const (
	cmdStart cmdKind = iota // lazy/stopped → starting
	cmdLearn                // start only to learn the manifest; idle-stop soon after
	cmdStop
	cmdRestart
)

type command struct {
	kind  cmdKind
	reply chan error
}

type startResult struct {
	gen      uint64
	plugin   *pluginhost.Plugin
	manifest *catalog.Manifest
	err      error
	config   bool               // the plugin refused its config: retrying cannot help
	cancel   context.CancelFunc // ends the start's context once its process is gone
}

type manifestUpdate struct {
	gen      uint64
	manifest *catalog.Manifest
}

// Hooks connect a supervisor to the rest of the gateway. Each may be nil.
type Hooks struct {
	Manifest func(plugin string, m *catalog.Manifest) // learned or changed
	Event    func(Event)                              // every transition, once Status shows it
	Notice   func(plugin string, e protov1.Event)     // log lines and resource updates from the plugin
}

// Supervisor owns one plugin. Run it with Run; talk to it with the methods.
type Supervisor struct {
	spec   Spec
	policy Policy
	hooks  Hooks
	log    hclog.Logger

	cmds     chan command
	snap     atomic.Pointer[snapshot]
	inflight atomic.Int64
	used     atomic.Uint64 // calls and requests ever made, so a learning start sees real use
	lastUsed atomic.Int64  // unix nanos
	// taskHold is when the last task the plugin runs may be gone (unix
	// nanos): an idle stop before then would end tasks clients still follow.
	taskHold atomic.Int64
	// closing is closed by BeginShutdown: no start any more, and nobody
	// waits for one.
	closing     chan struct{}
	closingOnce sync.Once
	done        chan struct{}
	startTime   func() time.Time
}

// New returns a supervisor for spec; nothing runs until Run.
func New(spec Spec, policy Policy, hooks Hooks, logger hclog.Logger) *Supervisor {
	s := &Supervisor{spec: spec, policy: policy.withDefaults(), hooks: hooks, log: logger.Named(spec.Name),
		cmds: make(chan command), closing: make(chan struct{}), done: make(chan struct{}), startTime: time.Now}
	s.snap.Store(&snapshot{status: Status{Name: spec.Name, State: Lazy, Since: time.Now()}, changed: make(chan struct{})})
	return s
}

// Name is the plugin's name.
func (s *Supervisor) Name() string { return s.spec.Name }

// Spec is how the plugin is run.
func (s *Supervisor) Spec() Spec { return s.spec }

// Status is the plugin's current state.
func (s *Supervisor) Status() Status { return s.snap.Load().status }

// Done is closed when Run has returned and the process is gone.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

func (s *Supervisor) send(ctx context.Context, kind cmdKind) error {
	c := command{kind: kind, reply: make(chan error, 1)}
	select {
	case s.cmds <- c:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return s.shuttingDown(Stopped, false)
	}
	select {
	case err := <-c.reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Start starts a lazy, stopped or failed plugin and waits until it runs.
func (s *Supervisor) Start(ctx context.Context) error {
	if err := s.send(ctx, cmdStart); err != nil {
		return err
	}
	return s.awaitRunning(ctx)
}

func (s *Supervisor) awaitRunning(ctx context.Context) error {
	p, err := s.acquire(ctx)
	if err == nil {
		p.calls.leave()
	}
	return err
}

// Learn starts the plugin in the background only to learn what it serves.
func (s *Supervisor) Learn(ctx context.Context) error { return s.send(ctx, cmdLearn) }

// Stop stops the plugin; calls are refused until it is started again.
func (s *Supervisor) Stop(ctx context.Context) error { return s.send(ctx, cmdStop) }

// Restart stops the plugin if it runs, closes an open circuit, starts it, and
// waits until it runs.
func (s *Supervisor) Restart(ctx context.Context) error {
	if err := s.send(ctx, cmdRestart); err != nil {
		return err
	}
	return s.awaitRunning(ctx)
}

// acquire returns the running plugin with the caller counted among its calls
// (leave when done), starting a lazy one and waiting through starting,
// restarting and stopping until ctx ends. A failed or stopped plugin answers
// at once, and so does one whose start the caller saw fail: the tries that
// follow, each up to its start_timeout, would keep the caller waiting to
// learn the same error. Once the gateway shuts down, only a running plugin
// takes calls: a caller waiting for any other is answered at once.
func (s *Supervisor) acquire(ctx context.Context) (*process, error) {
	sawStart := false
	for {
		sn := s.snap.Load()
		st := sn.status
		var closing <-chan struct{}
		if st.State != Running {
			if s.isClosing() {
				return nil, s.shuttingDown(st.State, sawStart)
			}
			closing = s.closing
		}
		switch st.State {
		case Starting:
			sawStart = true
		case Restarting:
			if sawStart {
				return nil, &UnavailableError{Plugin: s.spec.Name, State: Restarting, Reason: fmt.Sprintf(
					"its start failed: %s (it is tried again at %s, or core_plugin_restart)", st.LastError, st.NextTry.Format(time.RFC3339))}
			}
		case Running:
			select {
			case <-sn.plugin.Exited():
				// Dead but not yet seen by the owner: wait for it to move on.
			default:
				sn.plugin.calls.enter()
				// A stop that began meanwhile counted the calls without
				// this one: it must not start on a process being drained.
				if s.snap.Load() == sn {
					return sn.plugin, nil
				}
				sn.plugin.calls.leave()
				continue
			}
		case Failed:
			reason := st.LastError
			if !st.NextTry.IsZero() {
				reason += fmt.Sprintf(" (circuit open until %s, or core_plugin_restart)", st.NextTry.Format(time.RFC3339))
			}
			return nil, &UnavailableError{Plugin: s.spec.Name, State: Failed, Reason: reason}
		case Stopped:
			return nil, &UnavailableError{Plugin: s.spec.Name, State: Stopped, Reason: "stopped by the operator; core_plugin_start starts it"}
		case Lazy:
			if err := s.send(ctx, cmdStart); err != nil {
				return nil, s.waitError(ctx, st, err)
			}
			continue
		}
		select {
		case <-sn.changed:
		case <-closing:
		case <-s.done:
			return nil, s.shuttingDown(Stopped, false)
		case <-ctx.Done():
			return nil, s.waitError(ctx, st, ctx.Err())
		}
	}
}

func (s *Supervisor) waitError(ctx context.Context, st Status, err error) error {
	reason := "gave up waiting for it"
	if errors.Is(err, context.DeadlineExceeded) {
		reason = "the call's deadline passed while waiting for it"
	}
	if st.LastError != "" {
		reason += "; last error: " + st.LastError
	}
	return fmt.Errorf("%w: %w", &UnavailableError{Plugin: s.spec.Name, State: st.State, Reason: reason}, ctx.Err())
}

// Call runs one tool call on the plugin. When the plugin crashes during the
// call, the call ends at once with a *CrashError; when retry is set (the tool
// is read-only or idempotent) it is tried once more after the restart.
func (s *Supervisor) Call(ctx context.Context, req *protov1.CallRequest, events protov1.CallEvents, retry bool) (*protov1.Result, error) {
	s.inflight.Add(1)
	s.used.Add(1)
	defer func() {
		s.lastUsed.Store(time.Now().UnixNano())
		s.inflight.Add(-1)
	}()
	if events != nil {
		events = &monotonic{inner: events}
	}
	for attempt := 0; ; attempt++ {
		p, err := s.acquire(ctx)
		if err != nil {
			return nil, err
		}
		res, err := s.callOnce(ctx, p, req, events)
		p.calls.leave()
		var crash *CrashError
		if errors.As(err, &crash) && retry && attempt == 0 {
			s.log.Info("retrying call after crash", "tool", req.Name)
			continue
		}
		return res, err
	}
}

// Use runs f with the running plugin (starting it when lazy), for requests
// other than tool calls.
func (s *Supervisor) Use(ctx context.Context, f func(protov1.Backend) error) error {
	return s.use(ctx, func(p *process) error { return f(p) })
}

// use runs f with the running process, counted as in use so no idle stop
// or drain misses it.
func (s *Supervisor) use(ctx context.Context, f func(*process) error) error {
	s.inflight.Add(1)
	s.used.Add(1)
	defer func() {
		s.lastUsed.Store(time.Now().UnixNano())
		s.inflight.Add(-1)
	}()
	p, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	defer p.calls.leave()
	return f(p)
}

// UseRunning runs f with the plugin only if it runs now; it never starts
// one. ran is false when the plugin was not running.
func (s *Supervisor) UseRunning(f func(protov1.Backend) error) (ran bool, err error) {
	sn := s.snap.Load()
	if sn.status.State != Running {
		return false, nil
	}
	sn.plugin.calls.enter()
	defer sn.plugin.calls.leave()
	if s.snap.Load() != sn {
		return false, nil
	}
	return true, f(sn.plugin)
}

func (s *Supervisor) callOnce(ctx context.Context, p *process, req *protov1.CallRequest, events protov1.CallEvents) (*protov1.Result, error) {
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(p.gone, cancel)()
	mark := p.StderrMark()
	res, err := p.CallTool(callCtx, req, events)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	// Only a lost connection may be the process exiting: the stream breaks
	// a moment before the exit is seen. Any other error is the plugin's answer.
	if errors.Is(err, pluginhost.ErrConnectionLost) || callCtx.Err() != nil {
		select {
		case <-p.Exited():
		case <-time.After(exitWait):
		}
	}
	select {
	case <-p.Exited():
		if reason, ok := p.stopReason(); ok {
			return nil, &StoppedError{Plugin: s.spec.Name, Tool: req.Name, Reason: reason}
		}
		return nil, &CrashError{Plugin: s.spec.Name, Tool: req.Name, Status: p.ExitStatus(), Stderr: p.StderrSince(mark)}
	default:
		return nil, fmt.Errorf("plugin %q failed the call to %s: %w", s.spec.Name, req.Name, err)
	}
}

// exitWait is how long a call whose connection broke waits to see the
// process exit, to tell a crash from a network error.
const exitWait = 200 * time.Millisecond

// newBackoff is the wait between restarts while failures repeat: from
// BackoffBase, doubling up to BackoffMax, each wait jittered by ±50%.
func (p Policy) newBackoff() *backoff.ExponentialBackOff {
	b := &backoff.ExponentialBackOff{InitialInterval: p.BackoffBase, RandomizationFactor: 0.5, Multiplier: 2, MaxInterval: p.BackoffMax}
	b.Reset()
	return b
}

// monotonic passes on only progress that moves forward: MCP requires it, and a
// call retried after a crash starts its progress over.
type monotonic struct {
	inner protov1.CallEvents
	mu    sync.Mutex
	last  float64
	sent  bool
}

func (m *monotonic) Progress(p protov1.Progress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sent && p.Progress <= m.last {
		return
	}
	m.last, m.sent = p.Progress, true
	m.inner.Progress(p)
}

func (m *monotonic) Log(l protov1.LogMessage) { m.inner.Log(l) }
