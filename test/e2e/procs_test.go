package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc identifies one process for its whole life: a pid plus its start time,
// so a pid the kernel hands out again is never mistaken for the process seen.
type proc struct {
	Pid   int
	Start uint64 // clock ticks after boot, field 22 of /proc/<pid>/stat
	Pgid  int
	Cmd   string // argv joined by spaces
}

func (p proc) String() string { return fmt.Sprintf("%d (pgid %d) %s", p.Pid, p.Pgid, p.Cmd) }

// stat reads the fields of /proc/<pid>/stat after the command name.
func stat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(b)
	// The command name is in parentheses and may itself contain spaces and ')'.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// lookProc describes a live process; ok is false when it is gone or a zombie.
func lookProc(pid int) (proc, bool) {
	f, err := stat(pid)
	if err != nil || len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return proc{}, false
	}
	// After the name: state(0) ppid(1) pgrp(2) ... starttime(19).
	pgid, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return proc{Pid: pid, Start: start, Pgid: pgid, Cmd: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))}, true
}

// alive says whether this very process still runs (a zombie does not).
func (p proc) alive() bool {
	now, ok := lookProc(p.Pid)
	return ok && now.Start == p.Start
}

// stopped says whether the process is stopped by a signal (state T).
func (p proc) stopped() bool {
	f, err := stat(p.Pid)
	return err == nil && len(f) > 0 && f[0] == "T"
}

// children lists the live children of pid, from every thread's children file.
func children(pid int) []proc {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []proc
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if p, ok := lookProc(n); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// descendants lists every live process below pid.
func descendants(pid int) []proc {
	var out []proc
	for _, c := range children(pid) {
		out = append(out, c)
		out = append(out, descendants(c.Pid)...)
	}
	return out
}

// groupMembers lists the live processes whose process group is pgid.
func groupMembers(pgid int) []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := lookProc(pid); ok && p.Pgid == pgid {
			out = append(out, p)
		}
	}
	return out
}

// findProc returns the one process among ps whose command line contains s.
func findProc(t *testing.T, ps []proc, s string) proc {
	t.Helper()
	var found []proc
	for _, p := range ps {
		if strings.Contains(p.Cmd, s) {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one process running %q, found %d among %v", s, len(found), ps)
	}
	return found[0]
}

// kill sends sig to the process, failing the test when it cannot.
func kill(t *testing.T, p proc, sig syscall.Signal) {
	t.Helper()
	if !p.alive() {
		t.Fatalf("cannot send %v to %v: it is gone", sig, p)
	}
	if err := syscall.Kill(p.Pid, sig); err != nil {
		t.Fatalf("send %v to %v: %v", sig, p, err)
	}
}

// processSet remembers every process a test saw, to check at the end that
// none of them outlived what should have ended them.
type processSet map[proc]struct{}

func (s processSet) add(ps ...proc) {
	for _, p := range ps {
		s[p] = struct{}{}
	}
}

// survivors lists the remembered processes still alive and, when groups is
// set, any other process still in one of their process groups.
func (s processSet) survivors(groups bool) []proc {
	var out []proc
	pgids := map[int]bool{}
	seen := map[int]bool{}
	for p := range s {
		if p.alive() {
			out = append(out, p)
			seen[p.Pid] = true
		}
		if groups {
			pgids[p.Pgid] = true
		}
	}
	for g := range pgids {
		if g == syscall.Getpgrp() {
			continue // the test's own group: the gateway itself is in it
		}
		for _, m := range groupMembers(g) {
			if !seen[m.Pid] {
				out = append(out, m)
				seen[m.Pid] = true
			}
		}
	}
	return out
}

// errStillAlive is what waitGone reports about processes that did not end.
var errStillAlive = errors.New("processes still alive")

// waitGone waits up to d for every remembered process, and every process in
// their process groups, to end.
func (s processSet) waitGone(d time.Duration) error { return s.wait(d, true) }

// waitExited waits up to d for every remembered process to end.
func (s processSet) waitExited(d time.Duration) error { return s.wait(d, false) }

func (s processSet) wait(d time.Duration, groups bool) error {
	deadline := time.Now().Add(d)
	for {
		left := s.survivors(groups)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w after %s: %v", errStillAlive, d, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
