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
	"github.com/toolgate/toolgate/core/gateway"
)

// Run in-process: what the IDE gets when its input is not JSON or the
// gateway is gone, and that Run ends cleanly when the IDE closes stdin.
func TestRunAnswersWhatTheGatewayCannot(t *testing.T) {
	defer goleak.VerifyNone(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), inR, outW, Options{URL: "http://" + gatewaytest.FreeAddr(t) + "/mcp", ConnectWindow: 200 * time.Millisecond})
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

// A call's result reaches the IDE at least gateway.SettleDelay after its last
// progress line, in a read of its own: the official TypeScript client drops
// a progress line that arrives in the same read as its call's result.
func TestResultIsSettledAfterProgress(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), inR, outW, Options{URL: gw.URL})
		outW.Close()
	}()
	type line struct {
		text string
		at   time.Time
	}
	lines := make(chan line, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- line{sc.Text(), time.Now()}
		}
		close(lines)
	}()
	next := func() line {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the bridge's output ended")
			}
			return l
		case <-time.After(30 * time.Second):
			t.Fatal("no answer from the bridge")
		}
		return line{}
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	next()
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"call_tool","_meta":{"progressToken":"p"},"arguments":{"name":"x_hello_count","arguments":{"to":3}}}}`+"\n")
	var lastProgress time.Time
	for {
		l := next()
		if strings.Contains(l.text, `"notifications/progress"`) {
			lastProgress = l.at
			continue
		}
		if !strings.Contains(l.text, `"id":2`) {
			continue
		}
		if !strings.Contains(l.text, "counted to 3") || lastProgress.IsZero() {
			t.Fatalf("call with progress: result %s, progress seen %v", l.text, !lastProgress.IsZero())
		}
		if gap := l.at.Sub(lastProgress); gap < gateway.SettleDelay/2 {
			t.Errorf("result %v after the last progress line, want about %v", gap, gateway.SettleDelay)
		}
		break
	}
	inW.Close()
	go func() {
		for range lines {
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not end after stdin closed")
	}
}
