package mcpstdio

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// processTree is what the server started: its descendants by pid, each with
// its start time, so a pid the kernel has since given to another process is
// left alone. It is read from /proc while the server runs; once the server
// is gone, its children are the init process's and can no longer be found
// from it.
type processTree map[int]uint64

// note adds pid's descendants as they are now.
func (t processTree) note(pid int) {
	for _, child := range childPIDs(pid) {
		if _, seen := t[child]; seen {
			continue
		}
		if start, ok := startTime(child); ok {
			t[child] = start
			t.note(child)
		}
	}
}

// kill sends SIGKILL to every noted process that still runs, and to what
// each of them started since.
func (t processTree) kill() {
	for pid := range t {
		t.note(pid)
	}
	for pid, start := range t {
		if now, ok := startTime(pid); ok && now == start {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// childPIDs lists pid's children from every thread's children file.
func childPIDs(pid int) []int {
	files, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var out []int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// startTime is when pid started, in clock ticks since boot (field 22 of
// /proc/PID/stat); ok is false once it is gone or only a zombie.
func startTime(pid int) (uint64, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	// The fields after the command name, which may hold spaces and parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (the state); field 22 is fields[19].
	if len(fields) < 20 || fields[0] == "Z" {
		return 0, false
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	return start, err == nil
}
