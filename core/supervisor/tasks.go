package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// DefaultTaskHold is how long a lazy plugin is kept from an idle stop after
// it created a task that has no ttl.
const DefaultTaskHold = time.Hour

// Tasks runs f with the plugin's MCP task runner, starting the plugin when
// lazy. A plugin that does not run tasks fails with an error wrapping
// protov1.ErrInvalidArgument that names it: asking it for a task is the
// caller's mistake, not the plugin's fault.
func (s *Supervisor) Tasks(ctx context.Context, f func(protov1.TaskRunner) error) error {
	err := s.use(ctx, func(p *process) error {
		return f(holdingRunner{TaskRunner: p.Plugin.Tasks(), s: s})
	})
	if errors.Is(err, pluginhost.ErrUnsupported) {
		return fmt.Errorf("plugin %q does not run tasks: %w", s.spec.Name, protov1.ErrNoTask)
	}
	return err
}

// holdingRunner keeps the plugin from an idle stop while a task it created
// may still be followed: a task lives in the plugin's process.
type holdingRunner struct {
	protov1.TaskRunner
	s *Supervisor
}

func (r holdingRunner) CreateTask(ctx context.Context, req *protov1.CallRequest, ttlMs *int64) (protov1.Task, error) {
	t, err := r.TaskRunner.CreateTask(ctx, req, ttlMs)
	if err != nil {
		return t, err
	}
	hold := DefaultTaskHold
	if t.TTLMs != nil {
		hold = time.Duration(*t.TTLMs) * time.Millisecond
	}
	until := time.Now().Add(hold).UnixNano()
	for {
		cur := r.s.taskHold.Load()
		if cur >= until || r.s.taskHold.CompareAndSwap(cur, until) {
			return t, nil
		}
	}
}

// AnswerTaskInput hands the plugin a client's answer to what its task
// asked; a plugin that raises no task input refuses it as unsupported.
func (r holdingRunner) AnswerTaskInput(ctx context.Context, taskID, key string, result json.RawMessage, perr *protov1.PeerError) error {
	a, ok := r.TaskRunner.(protov1.TaskInputAnswerer)
	if !ok {
		return protov1.InvalidArgumentf("plugin %q takes no answers for its tasks", r.s.spec.Name)
	}
	return a.AnswerTaskInput(ctx, taskID, key, result, perr)
}
