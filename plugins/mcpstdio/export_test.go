package mcpstdio

// ServerPID is the pid of the running server, for tests that kill it.
func (b *Backend) ServerPID() int {
	s, err := b.session()
	if err != nil {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// Tracked reports how many calls the backend still tracks: progress routes
// and running calls. Both are zero between calls.
func (b *Backend) Tracked() (routes, running int) {
	s, err := b.session()
	if err != nil {
		return 0, 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.routes), len(s.running)
}

// ChildPIDs lists a process's children, as the plugin finds what its server
// started.
var ChildPIDs = childPIDs
