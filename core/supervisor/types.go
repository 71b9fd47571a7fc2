// Package supervisor owns each plugin process: it starts it (at boot or on the
// first call that needs it), watches it (exit, health pings), restarts it with
// backoff, opens a circuit after repeated crashes, and answers every call —
// with the plugin's result or with an error that says what happened.
//
// One goroutine owns each plugin's state; everyone else reads a snapshot or
// sends it a command.
package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// State is where a plugin is in its life.
type State string

const (
	Lazy       State = "lazy"       // not running; starts on the first call that needs it
	Starting   State = "starting"   // process launching, handshake, configure
	Running    State = "running"    // serving calls
	Restarting State = "restarting" // crashed; waiting for the next try (Status.NextTry)
	Failed     State = "failed"     // circuit open after repeated failures; calls answer at once
	Stopping   State = "stopping"
	Stopped    State = "stopped" // stopped by the operator; calls are refused until started
)

// Spec is how to run one plugin.
type Spec struct {
	Name         string
	Path         string
	Args         []string
	Env          []string // the plugin's whole environment
	Dir          string
	Config       json.RawMessage
	AutoStart    bool
	IdleTimeout  time.Duration // stop a lazy plugin idle this long; 0 = never
	StartTimeout time.Duration // bounds the whole start: launch, configure, first listing (default 30s)
	// ConfigError turns the plugin's field errors into an error that points at
	// the operator's file:line:col. Nil leaves them as the plugin said them.
	ConfigError func(*protov1.ConfigError) error
}

// Policy sets the restart and health rules; a zero field means DefaultPolicy's.
type Policy struct {
	BackoffBase    time.Duration // first wait, once failures repeat (the first restart is immediate)
	BackoffMax     time.Duration
	HealthyAfter   time.Duration // running this long resets the backoff
	MaxCrashes     int           // within CrashWindow, opens the circuit
	CrashWindow    time.Duration
	Cooldown       time.Duration // a failed plugin is tried again after this
	PingEvery      time.Duration
	PingTimeout    time.Duration
	MaxMissedPings int
	StopGrace      time.Duration // for the plugin to end what it runs (stdin EOF, SIGTERM) before SIGKILL
	DrainGrace     time.Duration // a stop waits this long for calls in flight to finish
	LearnIdle      time.Duration // idle stop for a plugin started only to learn its tools
}

// DefaultPolicy is what a gateway uses unless told otherwise.
var DefaultPolicy = Policy{
	BackoffBase: 200 * time.Millisecond, BackoffMax: 30 * time.Second, HealthyAfter: time.Minute,
	MaxCrashes: 5, CrashWindow: 5 * time.Minute, Cooldown: 5 * time.Minute,
	PingEvery: 3 * time.Second, PingTimeout: 2 * time.Second, MaxMissedPings: 3,
	StopGrace: 3 * time.Second, DrainGrace: 10 * time.Second, LearnIdle: time.Minute,
}

// withDefaults fills each zero field from DefaultPolicy, so a caller that
// sets one rule keeps sane values for the others.
func (p Policy) withDefaults() Policy {
	d := DefaultPolicy
	for _, f := range []struct{ v, def *time.Duration }{
		{&p.BackoffBase, &d.BackoffBase}, {&p.BackoffMax, &d.BackoffMax}, {&p.HealthyAfter, &d.HealthyAfter},
		{&p.CrashWindow, &d.CrashWindow}, {&p.Cooldown, &d.Cooldown}, {&p.PingEvery, &d.PingEvery},
		{&p.PingTimeout, &d.PingTimeout}, {&p.StopGrace, &d.StopGrace}, {&p.DrainGrace, &d.DrainGrace},
		{&p.LearnIdle, &d.LearnIdle},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if p.MaxCrashes <= 0 {
		p.MaxCrashes = d.MaxCrashes
	}
	if p.MaxMissedPings <= 0 {
		p.MaxMissedPings = d.MaxMissedPings
	}
	return p
}

// Status is a snapshot of one plugin.
type Status struct {
	Name      string
	State     State
	Since     time.Time // when it entered State
	Pid       int
	StartedAt time.Time // of the running process
	Restarts  int       // since the gateway started
	LastError string
	Stderr    []string  // last lines of the last process, when it failed
	NextTry   time.Time // when Restarting, or when a Failed circuit closes
	Info      protov1.Info
}

// Event is one state transition, kept for core_events.
type Event struct {
	Time   time.Time `json:"time"`
	Plugin string    `json:"plugin"`
	From   State     `json:"from"`
	To     State     `json:"to"`
	Reason string    `json:"reason,omitempty"`
}

// ErrUnavailable is wrapped by every error that says a plugin cannot take
// calls right now.
var ErrUnavailable = errors.New("plugin unavailable")

// UnavailableError says why a plugin cannot take a call.
type UnavailableError struct {
	Plugin string
	State  State
	Reason string
}

func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("plugin %q is %s", e.Plugin, e.State)
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

func (e *UnavailableError) Unwrap() error { return ErrUnavailable }

// CrashError is what an in-flight call gets when its plugin dies under it.
type CrashError struct {
	Plugin string
	Tool   string
	Status string   // "exit status 1", "killed by signal SIGKILL"
	Stderr []string // what the plugin wrote to stderr during the call
}

func (e *CrashError) Error() string {
	msg := fmt.Sprintf("plugin %q crashed (%s) during a call to %s; it is being restarted", e.Plugin, e.Status, e.Tool)
	if len(e.Stderr) > 0 {
		msg += "; last stderr: " + strings.Join(e.Stderr, " | ")
	}
	return msg
}

// StoppedError is what a call gets when a stop it did not ask for (an
// operator's, or the gateway shutting down) ended its plugin before the call
// finished within the drain grace.
type StoppedError struct {
	Plugin string
	Tool   string
	Reason string // "stopped by an operator", "restarted by an operator", ...
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("plugin %q was %s during a call to %s, which did not finish within the drain grace", e.Plugin, e.Reason, e.Tool)
}
