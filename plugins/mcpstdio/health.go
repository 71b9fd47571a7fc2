package mcpstdio

import (
	"context"
	"fmt"
	"time"
)

// healthTimeout bounds a health ping whose caller set no deadline: a server
// that is stopped or wedged never answers, and that is what Health is for.
const healthTimeout = 5 * time.Second

// Health pings the MCP server. The plugin process answering proves nothing
// about the server behind it: a server that is SIGSTOPped or stuck in a loop
// keeps its process and pipes, and only a request it must answer shows it.
func (b *Backend) Health(ctx context.Context) error {
	s, err := b.session()
	if err != nil {
		return err
	}
	// The ping gives up a little before the caller does, so the caller hears
	// which server did not answer rather than only its own deadline passing.
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(healthTimeout)
	}
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(-time.Until(deadline)/5))
	defer cancel()
	if _, err := s.request(ctx, "ping", nil); err != nil {
		return fmt.Errorf("mcp server pid %d did not answer ping: %w", s.proc.cmd.Process.Pid, err)
	}
	return nil
}

// Stop ends the server the way MCP asks a stdio server to quit (EOF on its
// stdin), then with SIGTERM, and only then with SIGKILL, so a server that
// saves its state on exit gets to. The steps share what is left of ctx; a
// ctx without deadline gives each step stopGrace.
func (b *Backend) Stop(ctx context.Context) error {
	grace := stopGrace
	if deadline, ok := ctx.Deadline(); ok {
		grace = max(time.Until(deadline)/2, 10*time.Millisecond)
	}
	b.closeWithin(grace)
	return nil
}
