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

// defaultStartTimeout bounds a start whose spec sets no StartTimeout.
const defaultStartTimeout = 30 * time.Second

// deadlineSlack: a request that fails this close to the start's deadline
// failed because of it.
const deadlineSlack = 10 * time.Millisecond

// configStopGrace bounds how long a plugin that refused its config gets to
// exit by itself before it is killed.
const configStopGrace = 2 * time.Second

// launch starts the process, configures it and learns its manifest, all
// within the spec's StartTimeout: a plugin that hangs in any phase fails its
// start with an error naming that phase.
func (s *Supervisor) launch(ctx context.Context, gen uint64) startResult {
	timeout := s.spec.StartTimeout
	if timeout <= 0 {
		timeout = defaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	// late says which phase a start that ran out of time was at, or is
	// nil while time is left. The plugin's side of a request ends at the
	// same deadline, and its cancellation may arrive a moment before ctx
	// ends here.
	late := func(phase string) error {
		if errors.Is(ctx.Err(), context.Canceled) || (ctx.Err() == nil && time.Until(deadline) > deadlineSlack) {
			return nil
		}
		return fmt.Errorf("plugin %q did not finish starting within start_timeout %s (it was at %s)", s.spec.Name, timeout, phase)
	}
	p, err := pluginhost.Start(ctx, pluginhost.Config{
		Name: s.spec.Name, Path: s.spec.Path, Args: s.spec.Args, Env: s.spec.Env, Dir: s.spec.Dir,
		Logger: s.log, StartTimeout: timeout,
	})
	if err != nil {
		if lerr := late("launch and handshake"); lerr != nil {
			err = fmt.Errorf("%w: %w", lerr, err)
		}
		return startResult{gen: gen, err: err}
	}
	fail := func(err error, config bool) startResult {
		stderr := p.Stderr()
		if config {
			// The plugin answered: it refused its config. Stopping it politely
			// lets it exit cleanly, so the log shows the config error rather
			// than a killed process.
			p.Stop(min(s.policy.StopGrace, configStopGrace))
		} else {
			p.Kill()
		}
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
		if lerr := late("configure"); lerr != nil {
			// The plugin did not answer: the error only echoes the
			// cancellation, in gRPC's words ("stream terminated by
			// RST_STREAM").
			return fail(lerr, false)
		}
		return fail(fmt.Errorf("configure plugin %q: %w", s.spec.Name, err), false)
	}
	m, err := learn(ctx, p)
	if err != nil {
		if lerr := late("the first listing"); lerr != nil {
			return fail(lerr, false)
		}
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
