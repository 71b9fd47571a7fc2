package supervisor

import (
	"context"
	"errors"
	"time"

	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Tasks runs f with the plugin's MCP task runner, starting the plugin when
// lazy. A plugin that does not run tasks fails with an error wrapping
// protov1.ErrInvalidArgument that names it: asking it for a task is the
// caller's mistake, not the plugin's fault.
func (s *Supervisor) Tasks(ctx context.Context, f func(protov1.TaskRunner) error) error {
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
	err = f(p.Plugin.Tasks())
	if errors.Is(err, pluginhost.ErrUnsupported) {
		return protov1.InvalidArgumentf("plugin %q does not run tasks", s.spec.Name)
	}
	return err
}
