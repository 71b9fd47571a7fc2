package pluginhost

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// socketPrefix names the directories that hold a plugin's gRPC socket. The
// host's pid follows it, so directories a host left behind when it was
// SIGKILLed can be told apart from those of hosts still running.
const socketPrefix = "toolgate-sock-"

// socketDir makes the directory go-plugin creates a plugin's socket
// directory in, named after this host process.
func socketDir() (string, error) {
	dir, err := os.MkdirTemp("", socketPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("make plugin socket directory: %w", err)
	}
	return dir, nil
}

var sweepOnce sync.Once

// sweepSocketDirs removes, once per host process, the socket directories of
// host processes that are gone.
func sweepSocketDirs(log hclog.Logger) {
	sweepOnce.Do(func() { removeStaleSocketDirs(os.TempDir(), log) })
}

func removeStaleSocketDirs(tmp string, log hclog.Logger) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := socketDirOwner(e.Name())
		if !ok || !e.IsDir() || alive(pid) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		if err := os.RemoveAll(path); err != nil {
			log.Warn("could not remove a stale plugin socket directory", "dir", path, "error", err)
			continue
		}
		log.Debug("removed a stale plugin socket directory", "dir", path, "owner_pid", pid)
	}
}

// socketDirOwner reads the host pid out of a socket directory's name.
func socketDirOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, socketPrefix)
	if !ok {
		return 0, false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil && pid > 0
}

// alive says whether a process with this pid exists; one we may not signal
// exists too.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
