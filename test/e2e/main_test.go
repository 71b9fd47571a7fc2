package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// bins are the executables every test runs, built once by TestMain.
var bins struct {
	toolgate   string
	mcpStdio   string // beside toolgate, which runs it for mcp-stdio plugins
	hello      string
	testplugin string
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "toolgate-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: build:", err)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e: leaked goroutines:", err)
			code = 1
		}
	}
	return code
}

// build compiles the gateway, its mcp-stdio wrapper, the hello plugin and the
// misbehaving test plugin into dir. Under -race they are built with the race detector too, so a data
// race in the gateway during fault injection fails the test that caused it.
func build(dir string) error {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	bins.toolgate = filepath.Join(dir, "toolgate")
	bins.mcpStdio = filepath.Join(dir, "toolgate-mcp-stdio")
	bins.hello = filepath.Join(dir, "hello-plugin")
	bins.testplugin = filepath.Join(dir, "testplugin")
	jobs := []struct{ dir, out, pkg string }{
		{root, bins.toolgate, "./cmd/toolgate"},
		{root, bins.mcpStdio, "./cmd/toolgate-mcp-stdio"},
		{root, bins.hello, "./plugins/examples/hello"},
		{filepath.Join(root, "sdk"), bins.testplugin, "./plugintest/testplugin"},
	}
	start := time.Now()
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		args := []string{"build", "-o", j.out}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, j.pkg)...)
		cmd.Dir = j.dir
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go build %s: %w\n%s", j.pkg, err, out)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "e2e: built toolgate, toolgate-mcp-stdio, hello-plugin and testplugin (race=%v) in %s\n", raceEnabled, time.Since(start).Round(time.Millisecond))
	return nil
}
