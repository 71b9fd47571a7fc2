package supervisor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// owner is the state only Run's goroutine touches.
type owner struct {
	status      Status
	plugin      *pluginhost.Plugin
	gen         uint64 // bumped per start, so late news of an old process is ignored
	learning    bool   // started only to learn the manifest
	crashes     []time.Time
	retry       int // consecutive failed starts or crashes, for the backoff
	missedPings int
	pinging     bool
	stopWatch   context.CancelFunc
	cancelStart context.CancelFunc
	timer       *time.Timer // backoff or cool-down
}

// Run owns the plugin until ctx ends, then stops it and returns.
func (s *Supervisor) Run(ctx context.Context) {
	defer close(s.done)
	o := &owner{status: s.Status()}
	starts := make(chan startResult)
	manifests := make(chan manifestUpdate)
	pings := make(chan error)
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
		go func() {
			r := s.launch(startCtx, gen)
			select {
			case starts <- r:
			case <-ctx.Done():
				if r.plugin != nil {
					r.plugin.Kill()
				}
			}
		}()
	}

	if s.spec.AutoStart {
		begin(false)
	}
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

		case c := <-s.cmds:
			c.reply <- s.command(o, c.kind, begin)

		case r := <-starts:
			if r.gen != o.gen {
				if r.plugin != nil {
					r.plugin.Kill()
				}
				continue
			}
			o.cancelStart = nil
			if r.err != nil {
				s.failed(o, r.err.Error(), nil, r.config)
				continue
			}
			o.plugin, o.missedPings = r.plugin, 0
			o.status.Pid, o.status.StartedAt, o.status.Info = r.plugin.Pid(), time.Now(), r.manifest.Info
			o.status.LastError, o.status.Stderr = "", nil
			s.lastUsed.Store(time.Now().UnixNano())
			s.set(o, Running, fmt.Sprintf("pid %d", r.plugin.Pid()), r.plugin)
			if s.hooks.Manifest != nil {
				s.hooks.Manifest(s.spec.Name, r.manifest)
			}
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

		case err := <-pings:
			o.pinging = false
			if o.plugin == nil {
				continue
			}
			if err == nil {
				o.missedPings = 0
				continue
			}
			o.missedPings++
			s.log.Warn("health ping missed", "missed", o.missedPings, "error", err)
			if o.missedPings >= s.policy.MaxMissedPings {
				p := o.plugin
				s.dropPlugin(o)
				p.Kill()
				s.failed(o, fmt.Sprintf("plugin stopped answering health pings (%d missed); killed", o.missedPings), p.Stderr(), false)
			}

		case <-ticker.C:
			s.tick(o, pings)

		case <-timerC:
			o.timer = nil
			switch o.status.State {
			case Restarting:
				begin(o.learning)
			case Failed:
				s.set(o, Lazy, "circuit cool-down over", nil)
				o.crashes, o.retry = nil, 0
			}
		}
	}
}

func (o *owner) stopTimer() {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
}

func (s *Supervisor) command(o *owner, kind cmdKind, begin func(bool)) error {
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
		s.stopPlugin(o, "stopped by the operator")
		s.set(o, Stopped, "stopped by the operator", nil)
	case cmdRestart:
		s.stopPlugin(o, "restart requested")
		o.crashes, o.retry = nil, 0
		begin(false)
	}
	return nil
}

// tick runs the periodic checks: health ping, healthy-reset, idle stop.
func (s *Supervisor) tick(o *owner, pings chan<- error) {
	if o.plugin == nil {
		return
	}
	if time.Since(o.status.StartedAt) > s.policy.HealthyAfter {
		o.retry = 0
	}
	idle := s.spec.IdleTimeout
	if o.learning && (idle == 0 || idle > s.policy.LearnIdle) {
		idle = s.policy.LearnIdle
	}
	if !s.spec.AutoStart && idle > 0 && s.inflight.Load() == 0 &&
		time.Since(time.Unix(0, s.lastUsed.Load())) > idle {
		s.stopPlugin(o, "idle")
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
			case pings <- err:
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
	case permanent:
		o.status.NextTry = time.Time{}
		s.set(o, Failed, reason, nil)
	case len(o.crashes) >= s.policy.MaxCrashes:
		o.status.NextTry = now.Add(s.policy.Cooldown)
		o.timer = time.NewTimer(s.policy.Cooldown)
		o.status.LastError = fmt.Sprintf("%d failures within %s, last: %s", len(o.crashes), s.policy.CrashWindow, reason)
		s.set(o, Failed, o.status.LastError, nil)
	default:
		wait := s.policy.backoff(o.retry)
		o.retry++
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
	o.plugin, o.status.Pid = nil, 0
}

// stopPlugin ends whatever runs or is starting; the caller sets the next state.
func (s *Supervisor) stopPlugin(o *owner, reason string) {
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
	s.set(o, Stopping, reason, nil)
	s.dropPlugin(o)
	p.Stop(s.policy.StopGrace)
}

func (s *Supervisor) shutdown(o *owner) {
	s.stopPlugin(o, "gateway shutting down")
	s.set(o, Stopped, "gateway shutting down", nil)
}

// set records a transition, then publishes the snapshot and wakes waiters.
func (s *Supervisor) set(o *owner, to State, reason string, p *pluginhost.Plugin) {
	from := o.status.State
	o.status.State, o.status.Since = to, time.Now()
	if to != Restarting && to != Failed {
		o.status.NextTry = time.Time{}
	}
	// The event is recorded before waiters wake, so whoever a transition
	// releases finds it in the history.
	if from != to {
		s.log.Info("plugin state", "from", from, "to", to, "reason", reason)
		if s.hooks.Event != nil {
			s.hooks.Event(Event{Time: o.status.Since, Plugin: s.spec.Name, From: from, To: to, Reason: reason})
		}
	}
	old := s.snap.Swap(&snapshot{status: o.status, plugin: p, changed: make(chan struct{})})
	close(old.changed)
}

// launch starts the process, configures it and learns its manifest.
func (s *Supervisor) launch(ctx context.Context, gen uint64) startResult {
	p, err := pluginhost.Start(ctx, pluginhost.Config{
		Name: s.spec.Name, Path: s.spec.Path, Args: s.spec.Args, Env: s.spec.Env, Dir: s.spec.Dir,
		Logger: s.log, StartTimeout: s.spec.StartTimeout,
	})
	if err != nil {
		return startResult{gen: gen, err: err}
	}
	fail := func(err error, config bool) startResult {
		stderr := p.Stderr()
		p.Kill()
		if len(stderr) > 0 && !config {
			err = fmt.Errorf("%w; its stderr: %s", err, strings.Join(stderr, " | "))
		}
		return startResult{gen: gen, err: err, config: config}
	}
	if err := p.Configure(ctx, s.spec.Config); err != nil {
		var ce *protov1.ConfigError
		if errors.As(err, &ce) {
			if s.spec.ConfigError != nil {
				err = s.spec.ConfigError(ce)
			}
			return fail(err, true)
		}
		return fail(fmt.Errorf("configure plugin %q: %w", s.spec.Name, err), false)
	}
	m, err := learn(ctx, p)
	if err != nil {
		return fail(fmt.Errorf("plugin %q: %w", s.spec.Name, err), false)
	}
	return startResult{gen: gen, plugin: p, manifest: m}
}

// learn asks a plugin for everything it serves.
func learn(ctx context.Context, b protov1.Backend) (*catalog.Manifest, error) {
	var m catalog.Manifest
	var err error
	if m.Info, err = b.GetInfo(ctx); err != nil {
		return nil, fmt.Errorf("get info: %w", err)
	}
	if m.Tools, err = b.ListTools(ctx); err != nil {
		return nil, fmt.Errorf("list tools: %w", err)
	}
	if m.Resources, err = b.ListResources(ctx); err != nil {
		return nil, fmt.Errorf("list resources: %w", err)
	}
	if m.Templates, err = b.ListResourceTemplates(ctx); err != nil {
		return nil, fmt.Errorf("list resource templates: %w", err)
	}
	if m.Prompts, err = b.ListPrompts(ctx); err != nil {
		return nil, fmt.Errorf("list prompts: %w", err)
	}
	return &m, nil
}

// watch follows the plugin's change notices until ctx ends or the plugin goes.
func (s *Supervisor) watch(ctx context.Context, p *pluginhost.Plugin, gen uint64, out chan<- manifestUpdate) {
	err := p.Watch(ctx, func(e protov1.Event) {
		switch e.Kind {
		case protov1.EventToolsChanged, protov1.EventResourcesChanged, protov1.EventPromptsChanged:
			m, err := learn(ctx, p)
			if err != nil {
				s.log.Warn("relearn after change notice failed", "error", err)
				return
			}
			select {
			case out <- manifestUpdate{gen: gen, manifest: m}:
			case <-ctx.Done():
			}
		default:
			if s.hooks.Notice != nil {
				s.hooks.Notice(s.spec.Name, e)
			}
		}
	})
	if err != nil && ctx.Err() == nil {
		s.log.Debug("watch ended", "error", err)
	}
}
