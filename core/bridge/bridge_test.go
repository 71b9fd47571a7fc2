package bridge

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/core/client/gatewaytest"
)

// Run in-process: what the IDE gets when its input is not JSON or the
// gateway is gone, and that Run ends cleanly when the IDE closes stdin.
func TestRunAnswersWhatTheGatewayCannot(t *testing.T) {
	defer goleak.VerifyNone(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), inR, outW, Options{URL: "http://" + gatewaytest.FreeAddr(t) + "/mcp", ReconnectWindow: 200 * time.Millisecond})
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	next := func() string {
		if !lines.Scan() {
			t.Fatalf("no answer: %v", lines.Err())
		}
		return lines.Text()
	}

	io.WriteString(inW, "not json\n")
	if got := next(); !strings.Contains(got, `"id":null`) || !strings.Contains(got, `"code":-32700`) {
		t.Errorf("parse error answer: %s", got)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{}}`+"\n")
	if got := next(); !strings.Contains(got, `"id":"init-1"`) || !strings.Contains(got, "cannot reach the gateway") {
		t.Errorf("initialize with no gateway: %s", got)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`+"\n")
	if got := next(); !strings.Contains(got, `"id":7`) || !strings.Contains(got, "send initialize first") {
		t.Errorf("request before a session: %s", got)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end after stdin closed")
	}
}
