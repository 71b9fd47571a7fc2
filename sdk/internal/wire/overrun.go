package wire

import (
	"context"
	"time"
)

// DefaultOverrunGrace is how long a handler may run on after its call ended
// (the client cancelled, or the gateway's timeout passed) before the plugin
// logs that it does not watch its ctx.
const DefaultOverrunGrace = 5 * time.Second

// watchOverrun arranges to log, once, a tool handler still running
// OverrunGrace after its call's ctx ended. The client has had its answer by
// then; what is left is a goroutine the plugin never gets back, and only the
// operator's log can say which tool leaks it. Call the returned function when
// the handler returns. A call that returns before its ctx ends, the usual
// case, costs no goroutine: the watch starts only when ctx is done.
func (s *Server) watchOverrun(ctx context.Context, tool string) (returned func()) {
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		grace := s.OverrunGrace
		if grace <= 0 {
			grace = DefaultOverrunGrace
		}
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			s.Logger.Warn("tool handler still running after its call ended; it does not return when its ctx is done",
				"tool", tool, "call_ended", context.Cause(ctx).Error(), "after", grace.String())
		}
	})
	return func() {
		stop()
		close(done)
	}
}
