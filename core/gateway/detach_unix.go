//go:build unix

package gateway

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// DetachStdio moves the process's MCP stream off fds 0 and 1 before any child
// process starts. go-plugin hands children the host's stdin, and a child
// reading it would swallow JSON-RPC lines; a stray print to stdout would corrupt
// the stream. So fds 0 and 1 are duplicated to new close-on-exec descriptors,
// fd 0 is pointed at /dev/null and fd 1 at stderr, and the duplicates are
// returned for ServeStdio. os.Stdin and os.Stdout keep their fd numbers, so
// they now read nothing and write to stderr.
//
// A pipe or socket stream is switched to non-blocking mode, which lets
// ServeStdio interrupt a pending read when its context ends.
func DetachStdio() (in, out *os.File, err error) {
	inFD, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, nil, fmt.Errorf("detach stdio: duplicate stdin: %w", err)
	}
	outFD, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		unix.Close(inFD)
		return nil, nil, fmt.Errorf("detach stdio: duplicate stdout: %w", err)
	}
	fail := func(what string, err error) (*os.File, *os.File, error) {
		unix.Close(inFD)
		unix.Close(outFD)
		return nil, nil, fmt.Errorf("detach stdio: %s: %w", what, err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return fail("open "+os.DevNull, err)
	}
	defer null.Close()
	if err := dupOnto(int(null.Fd()), 0); err != nil {
		return fail("point stdin at "+os.DevNull, err)
	}
	if err := dupOnto(2, 1); err != nil {
		return fail("point stdout at stderr", err)
	}
	if pollable(inFD) {
		if err := unix.SetNonblock(inFD, true); err != nil {
			return fail("make stdin non-blocking", err)
		}
	}
	return os.NewFile(uintptr(inFD), "mcp-stdin"), os.NewFile(uintptr(outFD), "mcp-stdout"), nil
}

// pollable reports whether fd is a pipe or socket. A terminal is left
// blocking: its open file is shared with the shell that started the process.
func pollable(fd int) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return false
	}
	mode := st.Mode & unix.S_IFMT
	return mode == unix.S_IFIFO || mode == unix.S_IFSOCK
}
