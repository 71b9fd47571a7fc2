package supervisor

import (
	"context"
	"errors"
	"sync"

	"github.com/toolgate/toolgate/sdk/pluginhost"
)

// RootsChanged tells the plugin, when it runs and takes client callbacks,
// that a client's roots changed. A plugin that is not running is not started
// for it: it asks the client of its next call anyway.
func (s *Supervisor) RootsChanged(ctx context.Context) error {
	sn := s.snap.Load()
	if sn.status.State != Running {
		return nil
	}
	p := sn.plugin
	p.calls.enter()
	defer p.calls.leave()
	if s.snap.Load() != sn {
		return nil // stopping meanwhile
	}
	err := p.RootsChanged(ctx)
	if errors.Is(err, pluginhost.ErrUnsupported) {
		return nil
	}
	return err
}

// RootsChanged tells every running plugin that takes client callbacks that a
// client's roots changed (MCP notifications/roots/list_changed), all at once
// so a slow plugin holds up no other, and returns when all have heard or ctx
// ended. Failures are logged: a plugin that missed it still asks during its
// next call.
func (m *Manager) RootsChanged(ctx context.Context) {
	var wg sync.WaitGroup
	for _, name := range m.order {
		s := m.sups[name]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.RootsChanged(ctx); err != nil {
				m.log.Warn("could not tell plugin that roots changed", "plugin", name, "error", err)
			}
		}()
	}
	wg.Wait()
}
