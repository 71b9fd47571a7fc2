package pluginhost

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestStaleSocketDirsOfDeadHostsAreRemoved(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	mk := func(name string) string {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(dir, "plugin-dir123"), 0o700); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	stale := mk(socketPrefix + strconv.Itoa(dead.Process.Pid) + "-42")
	live := mk(socketPrefix + strconv.Itoa(os.Getpid()) + "-43")
	other := mk("plugin-dir999") // not ours to judge
	removeStaleSocketDirs(tmp, hclog.NewNullLogger())
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("directory of a dead host kept: %v", err)
	}
	for _, dir := range []string{live, other} {
		if _, err := os.Stat(dir); err != nil {
			t.Errorf("%s removed: %v", dir, err)
		}
	}
}

func TestSocketDirOwner(t *testing.T) {
	for name, want := range map[string]int{
		"toolgate-sock-123-456": 123, "toolgate-sock-x-1": 0, "toolgate-sock-5": 0, "plugin-dir1": 0, "toolgate-sock--1": 0,
	} {
		if got, _ := socketDirOwner(name); got != want {
			t.Errorf("socketDirOwner(%q) = %d, want %d", name, got, want)
		}
	}
}
