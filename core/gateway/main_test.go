package gateway

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// childEnv makes the test binary a stdio MCP server, as `toolgate serve
// --stdio` is: DetachStdio first, then a child process that inherits stdin,
// then ServeStdio.
const childEnv = "TOOLGATE_GATEWAY_TEST_CHILD"

// strayMarker is printed to os.Stdout after DetachStdio; it must reach stderr.
const strayMarker = "stray print after DetachStdio"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	goleak.VerifyTestMain(m)
}

func childMain() int {
	in, out, err := DetachStdio()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(strayMarker)
	// A child handed the process's stdin, as go-plugin does: were fd 0 still
	// the MCP stream, cat would eat requests and the parent would miss answers.
	cat := exec.Command("cat")
	cat.Stdin, cat.Stdout, cat.Stderr = os.Stdin, os.Stderr, os.Stderr
	if err := cat.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "start cat:", err)
		return 1
	}
	f, err := buildFixture(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	err = f.srv.ServeStdio(ctx, in, out)
	if werr := cat.Wait(); werr != nil {
		fmt.Fprintln(os.Stderr, "cat:", werr)
		return 1
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve stdio:", err)
		return 1
	}
	return 0
}
