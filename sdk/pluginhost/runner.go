package pluginhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// procRunner starts a plugin the way toolgate needs, for go-plugin's RunnerFunc:
// in its own process group (so stopping it ends everything it spawned), with
// SIGTERM on the gateway's death, with no stdin, and watched through a pidfd so
// its exit is known at once, even while its children still hold its pipes.
type procRunner struct {
	cmd            *exec.Cmd
	stdout, stderr io.ReadCloser

	exited chan struct{} // closed when the plugin process has exited
	mu     sync.Mutex
	status string // how it exited ("exit status 1", "signal: killed"), set before exited closes
	pid    int    // once started; also its process group

	first   firstLine // what the program wrote first on stdout, where the handshake goes
	noShake bool      // go-plugin found no handshake on stdout (it asked Diagnose)

	// asked is set once the host wants the process gone, before it tells
	// it so; onExit hears how the process ended and whether it was asked to.
	asked  *atomic.Bool
	onExit func(pid int, status string, signalled, asked bool)
}

// errGivenUp: the host gave up the start before the process was launched.
var errGivenUp = errors.New("start given up before the process was launched")

func newProcRunner(cmd *exec.Cmd, asked *atomic.Bool, onExit func(pid int, status string, signalled, asked bool)) *procRunner {
	return &procRunner{cmd: cmd, exited: make(chan struct{}), asked: asked, onExit: onExit}
}

func (r *procRunner) Start(context.Context) error {
	r.cmd.Stdin = nil // /dev/null: the gateway's stdin may be its MCP stream
	// SIGTERM on the gateway's death: the SDK answers it by killing the
	// plugin's whole process group, which SIGKILL of the plugin alone would
	// leave behind.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	var err error
	if r.stdout, err = r.cmd.StdoutPipe(); err != nil {
		return err
	}
	r.stdout = &recordFirst{ReadCloser: r.stdout, line: &r.first}
	if r.stderr, err = r.cmd.StderrPipe(); err != nil {
		return err
	}
	// Checked and started under mu, which killGroup takes to read the pid:
	// a start the host gave up meanwhile launches nothing, or its process
	// is killed.
	r.mu.Lock()
	if r.asked.Load() {
		r.mu.Unlock()
		return errGivenUp
	}
	err = r.cmd.Start()
	if err == nil {
		r.pid = r.cmd.Process.Pid
	}
	r.mu.Unlock()
	if err != nil {
		return err
	}
	pidfd, err := unix.PidfdOpen(r.cmd.Process.Pid, 0)
	if err != nil {
		r.killGroup()
		return fmt.Errorf("watch plugin process %d: %w", r.cmd.Process.Pid, err)
	}
	go r.watch(pidfd)
	return nil
}

// watch waits for the plugin process to exit, records how, and ends the rest of
// its process group so nothing it spawned outlives it.
func (r *procRunner) watch(pidfd int) {
	defer unix.Close(pidfd)
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == nil || !errors.Is(err, unix.EINTR) {
			break
		}
	}
	var info unix.Siginfo
	status, signalled := "exited", false
	// WNOWAIT leaves the zombie for go-plugin's Wait to reap.
	if err := unix.Waitid(unix.P_PIDFD, pidfd, &info, unix.WEXITED|unix.WNOWAIT, nil); err == nil {
		status, signalled = describeExit(&info)
	}
	r.mu.Lock()
	r.status = status
	r.mu.Unlock()
	r.onExit(r.cmd.Process.Pid, status, signalled, r.asked.Load())
	r.killGroup()
	close(r.exited)
}

// describeExit says how a process ended, and whether a signal ended it.
func describeExit(info *unix.Siginfo) (string, bool) {
	// siginfo for SIGCHLD: si_code says how, si_status the code or signal.
	code, st := info.Code, siginfoStatus(info)
	switch code {
	case 1: // CLD_EXITED
		return "exit status " + strconv.Itoa(int(st)), false
	case 2, 3: // CLD_KILLED, CLD_DUMPED
		return "killed by signal " + unix.SignalName(syscall.Signal(st)), true
	}
	return "exited", false
}

func (r *procRunner) killGroup() {
	r.mu.Lock()
	pid := r.pid
	r.mu.Unlock()
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

func (r *procRunner) exitStatus() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// Wait reaps the process, but only after watch has read its exit status.
func (r *procRunner) Wait(context.Context) error {
	<-r.exited
	return r.cmd.Wait()
}

// Kill is go-plugin's, when it gives up a start or is told to end the
// plugin: a kill the host asked for.
func (r *procRunner) Kill(context.Context) error {
	r.asked.Store(true)
	r.killGroup()
	return nil
}

// Diagnose is go-plugin's hook for a program whose first line on stdout is
// not its handshake; its own message says only "Unrecognized remote plugin
// message", so startError words one that says what to do.
func (r *procRunner) Diagnose(context.Context) string {
	r.mu.Lock()
	r.noShake = true
	r.mu.Unlock()
	return ""
}

// notPlugin reports whether the program wrote something other than go-plugin's
// handshake first on stdout (or nothing), and what.
func (r *procRunner) notPlugin() (bool, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.noShake, r.first.String()
}

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *procRunner) Name() string          { return r.cmd.Path }

// ID is "" for a program that never started (a path that is not there):
// go-plugin's Kill then has nothing to kill, instead of logging that a
// process that never was "failed to exit gracefully".
func (r *procRunner) ID() string {
	if r.cmd.Process == nil {
		return ""
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *procRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *procRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }

// firstLine keeps the start of what a program wrote first on stdout.
type firstLine struct {
	mu   sync.Mutex
	buf  []byte
	done bool
}

const firstLineMax = 200

func (f *firstLine) record(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return
	}
	if i := bytes.IndexByte(p, '\n'); i >= 0 {
		p, f.done = p[:i], true
	}
	f.buf = append(f.buf, p[:min(len(p), firstLineMax-len(f.buf))]...)
	f.done = f.done || len(f.buf) == firstLineMax
}

func (f *firstLine) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.TrimSpace(string(f.buf))
}

// recordFirst hands stdout on to go-plugin unchanged, keeping its first line.
type recordFirst struct {
	io.ReadCloser
	line *firstLine
}

func (r *recordFirst) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.line.record(p[:n])
	return n, err
}
