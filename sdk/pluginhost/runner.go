package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
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
}

func newProcRunner(cmd *exec.Cmd) *procRunner {
	return &procRunner{cmd: cmd, exited: make(chan struct{})}
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
	if r.stderr, err = r.cmd.StderrPipe(); err != nil {
		return err
	}
	if err := r.cmd.Start(); err != nil {
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
	status := "exited"
	// WNOWAIT leaves the zombie for go-plugin's Wait to reap.
	if err := unix.Waitid(unix.P_PIDFD, pidfd, &info, unix.WEXITED|unix.WNOWAIT, nil); err == nil {
		status = describeExit(&info)
	}
	r.mu.Lock()
	r.status = status
	r.mu.Unlock()
	r.killGroup()
	close(r.exited)
}

func describeExit(info *unix.Siginfo) string {
	// siginfo for SIGCHLD: si_code says how, si_status the code or signal.
	code, st := info.Code, siginfoStatus(info)
	switch code {
	case 1: // CLD_EXITED
		return "exit status " + strconv.Itoa(int(st))
	case 2, 3: // CLD_KILLED, CLD_DUMPED
		return "killed by signal " + unix.SignalName(syscall.Signal(st))
	}
	return "exited"
}

func (r *procRunner) killGroup() {
	if r.cmd.Process != nil {
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
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

func (r *procRunner) Kill(context.Context) error {
	r.killGroup()
	return nil
}

func (r *procRunner) Diagnose(context.Context) string { return "" }
func (r *procRunner) Stdout() io.ReadCloser           { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser           { return r.stderr }
func (r *procRunner) Name() string                    { return r.cmd.Path }
func (r *procRunner) ID() string {
	if r.cmd.Process == nil {
		return "not started"
	}
	return strconv.Itoa(r.cmd.Process.Pid)
}

func (r *procRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *procRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }
