package supervisor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cenkalti/backoff/v5"
)

// pingResult is a health ping's answer, with the start it was sent to.
type pingResult struct {
	gen uint64
	err error
}

// owner is the state only Run's goroutine touches.
type owner struct {
	status      Status
	plugin      *process
	gen         uint64 // bumped per start, so late news of an old process is ignored
	learning    bool   // started only to learn the manifest
	usedAtStart uint64 // Supervisor.used when the plugin came up, to see real use since
	crashes     []time.Time
	retry       int // consecutive failed starts or crashes, for the backoff
	backoff     *backoff.ExponentialBackOff
	missedPings int
	pinging     bool
	stopWatch   context.CancelFunc
	cancelStart context.CancelFunc
	timer       *time.Timer // backoff or cool-down
}

// Run owns the plugin until ctx ends, then stops it and returns once its
// process is gone, also one a start under way was bringing up.
func (s *Supervisor) Run(ctx context.Context) {
	var launches sync.WaitGroup
	defer close(s.done)
	defer launches.Wait()
	o := &owner{status: s.Status(), backoff: s.policy.newBackoff()}
	starts := make(chan startResult)
	manifests := make(chan manifestUpdate)
	pings := make(chan pingResult)
	ticker := time.NewTicker(s.policy.PingEvery)
	defer ticker.Stop()

	begin := func(learn bool) {
		o.gen++
		o.learning = learn
		o.stopTimer()
		startCtx, cancel := context.WithCancel(ctx)
		o.cancelStart = cancel
		gen := o.gen
		s.set(o, Starting, "", nil)
		launches.Add(1)
		go func() {
			defer launches.Done()
			r := s.launch(startCtx, gen)
			r.cancel = cancel
			select {
			case starts <- r:
			case <-ctx.Done():
				if r.plugin != nil {
					r.plugin.Kill()
				}
				cancel()
			}
		}()
	}

	if s.spec.AutoStart {
		begin(false)
	}
	closing := s.closing
	for {
		var exited <-chan struct{}
		if o.plugin != nil {
			exited = o.plugin.Exited()
		}
		var timerC <-chan time.Time
		if o.timer != nil {
			timerC = o.timer.C
		}
		select {
		case <-ctx.Done():
			s.shutdown(o)
			return

		case <-closing:
			closing = nil
			s.abandonStart(o)

		case c := <-s.cmds:
			c.reply <- s.command(o, c.kind, begin)

		case r := <-starts:
			if r.gen != o.gen {
				if r.plugin != nil {
					r.plugin.Kill()
				}
				r.cancel()
				continue
			}
			o.cancelStart = nil
			if r.err != nil {
				r.cancel()
				s.failed(o, r.err.Error(), nil, r.config)
				continue
			}
			o.plugin, o.missedPings = newProcess(r.plugin, r.gen, r.cancel), 0
			o.usedAtStart = s.used.Load()
			o.status.Pid, o.status.StartedAt, o.status.Info = r.plugin.Pid(), time.Now(), r.manifest.Info
			o.status.LastError, o.status.Stderr = "", nil
			s.lastUsed.Store(time.Now().UnixNano())
			// The tools are in the catalog before anyone waiting for the
			// plugin to run wakes: a call that started it finds them.
			if s.hooks.Manifest != nil {
				s.hooks.Manifest(s.spec.Name, r.manifest)
			}
			s.set(o, Running, fmt.Sprintf("pid %d", r.plugin.Pid()), o.plugin)
			watchCtx, cancel := context.WithCancel(ctx)
			o.stopWatch = cancel
			go s.watch(watchCtx, r.plugin, r.gen, manifests)

		case m := <-manifests:
			if m.gen == o.gen && o.plugin != nil && s.hooks.Manifest != nil {
				s.hooks.Manifest(s.spec.Name, m.manifest)
			}

		case <-exited:
			p := o.plugin
			s.dropPlugin(o)
			p.Kill() // the process is gone; this ends the rest of its group and its connection
			s.failed(o, "plugin process "+p.ExitStatus(), p.Stderr(), false)

		case ping := <-pings:
			s.pinged(o, ping)

		case <-ticker.C:
			s.tick(o, pings)

		case <-timerC:
			o.timer = nil
			switch o.status.State {
			case Restarting:
				begin(o.learning)
			case Failed:
				s.set(o, Lazy, "circuit cool-down over", nil)
				o.crashes = nil
				o.resetBackoff()
			}
		}
	}
}

// pinged counts a health ping's answer; enough misses in a row kill the
// plugin, which restarts it.
func (s *Supervisor) pinged(o *owner, ping pingResult) {
	o.pinging = false
	// A ping of an earlier process says nothing about this one.
	if o.plugin == nil || ping.gen != o.plugin.gen {
		return
	}
	if ping.err == nil {
		o.missedPings = 0
		return
	}
	o.missedPings++
	s.log.Warn("health ping missed", "missed", o.missedPings, "error", ping.err)
	if o.missedPings >= s.policy.MaxMissedPings {
		p := o.plugin
		s.dropPlugin(o)
		p.KillFor(fmt.Sprintf("it stopped answering health pings (%d missed)", o.missedPings))
		s.failed(o, fmt.Sprintf("plugin stopped answering health pings (%d missed); killed; last error: %v", o.missedPings, ping.err), p.Stderr(), false)
	}
}

// nextWait is the wait before the next restart: none after a first failure,
// so a single crash costs only the plugin's start; exponential with jitter
// while failures repeat.
func (o *owner) nextWait() time.Duration {
	o.retry++
	if o.retry == 1 {
		return 0
	}
	return o.backoff.NextBackOff()
}

// resetBackoff forgets earlier failures: the next one restarts at once.
func (o *owner) resetBackoff() {
	o.retry = 0
	o.backoff.Reset()
}

func (o *owner) stopTimer() {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
}

func (s *Supervisor) command(o *owner, kind cmdKind, begin func(bool)) error {
	if kind != cmdStop && s.isClosing() {
		return s.shuttingDown(o.status.State, false)
	}
	switch kind {
	case cmdStart, cmdLearn:
		switch o.status.State {
		case Lazy, Stopped:
			begin(kind == cmdLearn)
		case Failed:
			if kind == cmdStart && o.status.NextTry.IsZero() {
				begin(false) // a config failure is only retried by request
			}
		}
		if kind == cmdStart {
			o.learning = false
		}
	case cmdStop:
		s.stopPlugin(o, "stopped by the operator", "stopped by an operator")
		s.set(o, Stopped, "stopped by the operator", nil)
	case cmdRestart:
		s.stopPlugin(o, "restart requested", "restarted by an operator")
		o.crashes = nil
		o.resetBackoff()
		begin(false)
	}
	return nil
}

// tick runs the periodic checks: health ping, healthy-reset, idle stop.
func (s *Supervisor) tick(o *owner, pings chan<- pingResult) {
	if o.plugin == nil {
		return
	}
	if time.Since(o.status.StartedAt) > s.policy.HealthyAfter {
		o.resetBackoff()
	}
	if o.learning && s.used.Load() != o.usedAtStart {
		o.learning = false // in real use now: its own idle_timeout rules
	}
	idle := s.spec.IdleTimeout
	if o.learning && (idle == 0 || idle > s.policy.LearnIdle) {
		idle = s.policy.LearnIdle
	}
	if !s.spec.AutoStart && idle > 0 && s.inflight.Load() == 0 &&
		time.Since(time.Unix(0, s.lastUsed.Load())) > idle && time.Now().UnixNano() > s.taskHold.Load() {
		s.stopPlugin(o, "idle", "stopped while idle")
		s.set(o, Lazy, fmt.Sprintf("idle for %s", idle), nil)
		return
	}
	if !o.pinging {
		o.pinging = true
		p := o.plugin
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), s.policy.PingTimeout)
			defer cancel()
			err := p.Ping(ctx)
			select {
			case pings <- pingResult{gen: p.gen, err: err}:
			case <-s.done: // Run has returned; nobody reads the answer
			}
		}()
	}
}

// failed handles a failed start or a crash: restart with backoff, or open the
// circuit after too many crashes in the window (at once for a config error).
func (s *Supervisor) failed(o *owner, reason string, stderr []string, permanent bool) {
	now := time.Now()
	o.status.LastError, o.status.Stderr = reason, stderr
	o.crashes = append(o.crashes, now)
	for len(o.crashes) > 0 && now.Sub(o.crashes[0]) > s.policy.CrashWindow {
		o.crashes = o.crashes[1:]
	}
	o.status.Restarts++
	switch {
	case s.isClosing():
		// Nobody waits for a restart the gateway would stop at once.
		o.status.NextTry = time.Time{}
		s.set(o, Stopped, reason+"; not restarted: the gateway is shutting down", nil)
	case permanent:
		o.status.NextTry = time.Time{}
		s.set(o, Failed, reason, nil)
	case len(o.crashes) >= s.policy.MaxCrashes:
		o.status.NextTry = now.Add(s.policy.Cooldown)
		o.timer = time.NewTimer(s.policy.Cooldown)
		o.status.LastError = fmt.Sprintf("%d failures within %s, last: %s", len(o.crashes), s.policy.CrashWindow, reason)
		s.set(o, Failed, o.status.LastError, nil)
	default:
		wait := o.nextWait()
		o.status.NextTry = now.Add(wait)
		o.timer = time.NewTimer(wait)
		s.set(o, Restarting, fmt.Sprintf("%s; next try in %s", reason, wait.Round(time.Millisecond)), nil)
	}
}

func (s *Supervisor) dropPlugin(o *owner) {
	if o.stopWatch != nil {
		o.stopWatch()
		o.stopWatch = nil
	}
	if o.plugin != nil {
		o.plugin.cancel()
	}
	o.plugin, o.status.Pid = nil, 0
}

// stopPlugin ends whatever runs or is starting; the caller sets the next state.
// Calls in flight get up to DrainGrace to finish; a call still running then
// is cut and told why in the words of cut ("stopped by an operator"). The
// plugin then gets StopGrace to end what it runs politely.
func (s *Supervisor) stopPlugin(o *owner, reason, cut string) {
	o.stopTimer()
	o.status.NextTry = time.Time{}
	if o.cancelStart != nil {
		o.cancelStart()
		o.cancelStart = nil
		o.gen++ // the start in flight kills its plugin when it reports
	}
	if o.plugin == nil {
		return
	}
	p := o.plugin
	p.stop.Store(&cut)
	s.set(o, Stopping, reason, nil)
	select {
	case <-p.calls.idle():
	case <-p.Exited():
	case <-time.After(s.policy.DrainGrace):
		s.log.Warn("calls still running after the drain grace; stopping anyway", "grace", s.policy.DrainGrace)
	}
	s.dropPlugin(o)
	p.Stop(s.policy.StopGrace)
}

// set records a transition, then publishes the snapshot and wakes waiters.
func (s *Supervisor) set(o *owner, to State, reason string, p *process) {
	from := o.status.State
	o.status.State, o.status.Since = to, time.Now()
	if to != Restarting && to != Failed {
		o.status.NextTry = time.Time{}
	}
	// The hook hears of the event once Status shows it, and before waiters
	// wake, so whoever a transition releases finds it in the history.
	old := s.snap.Swap(&snapshot{status: o.status, plugin: p, changed: make(chan struct{})})
	if from != to {
		s.log.Info("plugin state", "from", from, "to", to, "reason", reason)
		if s.hooks.Event != nil {
			s.hooks.Event(Event{Time: o.status.Since, Plugin: s.spec.Name, From: from, To: to, Reason: reason})
		}
	}
	close(old.changed)
}
