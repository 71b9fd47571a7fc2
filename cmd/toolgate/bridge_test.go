package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A bridge with a --url that is not a URL fails at start, where the IDE
// shows a server's start-up error, instead of running and answering every
// request with a parser's complaint.
func TestBridgeRejectsBadURL(t *testing.T) {
	r := tg(t, nil, "bridge", "--url", "127.0.0.1:8700/mcp")
	wantExit(t, r, 2, nil, []string{`URL "127.0.0.1:8700/mcp" is not an http:// or https:// URL with a host, like http://127.0.0.1:8700/mcp`})
}

// Requests still running when the client closes stdin are answered before
// the bridge exits, as `serve --stdio` answers them: piping a script of
// requests into the bridge loses no answer.
func TestBridgeAnswersBeforeExitOnEOF(t *testing.T) {
	gw, _ := helloGateway(t)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"x_hello_count","arguments":{"to":5,"delay_ms":100}}}}
`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.Toolgate, "bridge", "--url", gw.URL)
	cmd.Stdin = strings.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bridge: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{`"id":1,"result"`, `"id":2,"result":{"tools"`, `"id":3,"result"`, "counted to 5"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %s:\n%s", want, stdout.String())
		}
	}
}

// Mistakes in the args list an IDE starts the bridge with are named.
func TestBridgeArgumentMistakes(t *testing.T) {
	r := tg(t, nil, "bridge", "http://127.0.0.1:8700/mcp")
	wantExit(t, r, 2, nil, []string{`unexpected argument "http://127.0.0.1:8700/mcp": give the gateway's URL with --url`})
	r = tg(t, nil, "bridge", "--log-level", "verbose")
	wantExit(t, r, 2, nil, []string{`--log-level "verbose": want trace, debug, info, warn or error`})
}
