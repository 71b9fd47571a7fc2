package supervisor

// BeginShutdown tells the supervisor the gateway is shutting down, and
// returns at once. No start begins any more; a start under way is abandoned
// and its process ended, and every call waiting for the plugin to run is
// answered at once that the gateway is shutting down, where it would
// otherwise wait through the whole shutdown grace for a start that is
// stopped at its end. A running plugin keeps serving calls until Run's ctx
// ends.
func (s *Supervisor) BeginShutdown() {
	s.closingOnce.Do(func() { close(s.closing) })
}

func (s *Supervisor) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// shuttingDown is the answer to a call or command the shutdown refused: state
// is where the plugin was then, and waited says the caller was waiting for
// its start, which the owner may have abandoned already.
func (s *Supervisor) shuttingDown(state State, waited bool) error {
	const retry = "; retry once the gateway is back"
	switch {
	case waited || state == Starting || state == Restarting:
		return &UnavailableError{Plugin: s.spec.Name, State: Stopping, Reason: "the gateway is shutting down, so its start was abandoned" + retry}
	case state == Lazy:
		return &UnavailableError{Plugin: s.spec.Name, State: Lazy, Reason: "the gateway is shutting down, so it is not started" + retry}
	}
	return &UnavailableError{Plugin: s.spec.Name, State: Stopped, Reason: "the gateway is shutting down" + retry}
}

// abandonStart is the owner's part of BeginShutdown: a plugin that does not
// run now never will.
func (s *Supervisor) abandonStart(o *owner) {
	if o.plugin != nil {
		return
	}
	s.stopPlugin(o, "gateway shutting down", "stopped because the gateway is shutting down")
	s.set(o, Stopped, "gateway shutting down", nil)
}

// shutdown is the owner's last act, once Run's ctx ends: whatever runs or
// starts is stopped.
func (s *Supervisor) shutdown(o *owner) {
	s.stopPlugin(o, "gateway shutting down", "stopped because the gateway is shutting down")
	s.set(o, Stopped, "gateway shutting down", nil)
}

// BeginShutdown calls every supervisor's BeginShutdown.
func (m *Manager) BeginShutdown() {
	for _, s := range m.sups {
		s.BeginShutdown()
	}
}
