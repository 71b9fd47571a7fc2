package main

import "testing"

// A bridge with a --url that is not a URL fails at start, where the IDE
// shows a server's start-up error, instead of running and answering every
// request with a parser's complaint.
func TestBridgeRejectsBadURL(t *testing.T) {
	r := tg(t, nil, "bridge", "--url", "127.0.0.1:8700/mcp")
	wantExit(t, r, 2, nil, []string{`URL "127.0.0.1:8700/mcp" is not an http:// or https:// URL with a host, like http://127.0.0.1:8700/mcp`})
}
