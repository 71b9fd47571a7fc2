package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// Clients that break the protocol's rules, on purpose or by mistake: each
// gets an answer that names what it did wrong, and the requests of the same
// session that kept to the rules are not harmed by it.

func TestStdioDuplicateIDInFlightIsRefusedAndTheFirstStaysCancellable(t *testing.T) {
	f := newFixture(t, nil)
	c, done := startStdio(t, f)
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"block","_meta":{"progressToken":7}}}`)
	if m := c.recv(); m.Method != "notifications/progress" {
		t.Fatalf("got %+v, want block's progress", m)
	}
	<-f.started

	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"same id"}}}`)
	m := c.recv()
	if string(m.ID) != "7" || m.Error == nil || m.Error.Code != codeInvalidRequest ||
		!strings.Contains(m.Error.Message, "id 7") || !strings.Contains(m.Error.Message, "still running") {
		t.Fatalf("second request with the id of a running one: id %s result %s error %+v, want -32600 naming the id", m.ID, m.Result, m.Error)
	}

	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	select {
	case err := <-f.cancelled:
		if err != context.Canceled {
			t.Fatalf("handler saw %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled no longer reached the first request after a duplicate of its id")
	}
	finish(t, c, done)
}

// A notification sent with an id is a request by JSON-RPC's rules, and a
// request is answered: here with -32600 saying the id does not belong,
// rather than with silence (notifications/cancelled) or "method not found"
// (a method that does exist, as a notification).
func TestNotificationWithAnIDIsAnsweredAsAMistake(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":6,"method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":6,"method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":6,"method":"notifications/roots/list_changed"}`,
	} {
		transports(t, func(t *testing.T, send exchange) {
			m := lastOf(send(t, msg))
			if string(m.ID) != "6" || m.Error == nil || m.Error.Code != codeInvalidRequest ||
				!strings.Contains(m.Error.Message, "is a notification and must have no id") {
				t.Errorf("%s: got id %s error %+v, want -32600 with id 6 saying a notification has no id", msg, m.ID, m.Error)
			}
		})
	}
}

// A body that stops arriving is cut by the read timeout, and the answer says
// so and names the setting, not the bare network error.
func TestServeHTTPBodyCutByReadTimeoutNamesTheSetting(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.ReadTimeout = 300 * time.Millisecond })
	addr, _, _ := serve(t, f, "127.0.0.1:0")
	conn, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\""); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte("not received in full within 300ms (listen.read_timeout)")) {
		t.Fatalf("body cut by the read timeout: %d %s, want 400 naming listen.read_timeout", resp.StatusCode, body)
	}
}

// Every session keeps its client's clientInfo and capabilities: one
// initialize may not make a session hold megabytes of them.
func TestHTTPInitializeWithHugeClientInfoIsRefused(t *testing.T) {
	c := newHTTPConn(t, startHTTP(t, newFixture(t, nil)).URL+"/mcp", nil)
	big := strings.Repeat("a", maxClientState)
	status, msgs := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + big + `","version":"1"}}}`)
	if status != http.StatusBadRequest || len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != codeInvalidParams ||
		!strings.Contains(msgs[0].Error.Message, "clientInfo and capabilities take") {
		t.Fatalf("initialize with a clientInfo of %d bytes: status %d %+v, want 400 and -32602 saying it is too large", len(big), status, msgs)
	}
	c.initialize() // a client of ordinary size still gets a session
}

// A session's resource subscriptions are kept for its whole life, here and
// at the plugin: a URI of megabytes, or subscriptions without end, are
// refused with what bound they pass, and the plugin is never asked.
func TestResourceSubscriptionsAreBounded(t *testing.T) {
	lib := &library{templates: []protov1.ResourceTemplate{{URITemplate: "mem://t/{id}", Name: "t"}}}
	_, url := nativeFixture(t, lib)
	c := newHTTPConn(t, url, nil)
	c.initialize()
	subscribe := func(id int, uri string) *message {
		t.Helper()
		_, msgs := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":%q}}`, id, uri))
		if len(msgs) != 1 {
			t.Fatalf("subscribe %.40s: %d messages", uri, len(msgs))
		}
		return &msgs[0]
	}

	long := "mem://t/" + strings.Repeat("x", maxSubscriptionURI)
	if m := subscribe(1, long); m.Error == nil || !strings.Contains(m.Error.Message, fmt.Sprintf("the URI is %d bytes long, at most %d", len(long), maxSubscriptionURI)) {
		t.Fatalf("subscribe to a URI of %d bytes: %s %+v, want an error naming the bound", len(long), m.Result, m.Error)
	}
	for i := range maxSessionSubscriptions {
		if m := subscribe(10+i, fmt.Sprintf("mem://t/%d", i)); m.Error != nil {
			t.Fatalf("subscription %d: %+v", i+1, m.Error)
		}
	}
	if m := subscribe(2, "mem://t/one-more"); m.Error == nil || !strings.Contains(m.Error.Message, "the most one may") {
		t.Fatalf("subscription past %d: %s %+v, want an error naming the bound", maxSessionSubscriptions, m.Result, m.Error)
	}
	if m := subscribe(3, "mem://t/0"); m.Error != nil {
		t.Fatalf("subscribing again to a URI the session holds: %+v", m.Error)
	}
	for _, call := range lib.recorded() {
		if strings.Contains(call, "one-more") || strings.Contains(call, "xxxx") {
			t.Errorf("the plugin was asked for a refused subscription: %.60s", call)
		}
	}
}

// What a request names is quoted back clipped, however long it was.
func TestRefusedNamesAreQuotedClipped(t *testing.T) {
	long := strings.Repeat("m", 100_000)
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":5,"method":"` + long + `"}`,
		`{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"` + long + `"}}`,
	} {
		transports(t, func(t *testing.T, send exchange) {
			m := lastOf(send(t, msg))
			if string(m.ID) != "5" || m.Error == nil || len(m.Error.Message) > 2000 || !strings.Contains(m.Error.Message, " bytes in all)") {
				t.Errorf("%.60s…: got id %s, an error of %d bytes (%.80s…), want it clipped, saying how long it was",
					msg, m.ID, len(m.Error.Message), m.Error.Message)
			}
		})
	}
}

// A protocol version header of kilobytes is quoted back clipped.
func TestHTTPOddProtocolHeaderIsQuotedClipped(t *testing.T) {
	c := newHTTPConn(t, startHTTP(t, newFixture(t, nil)).URL+"/mcp", nil)
	c.initialize()
	for _, v := range []string{strings.Repeat("x", 5000), "2026-07-28" + strings.Repeat("x", 5000), "1999-01-01" + strings.Repeat("x", 5000)} {
		c.header.Set(headerProtocol, v)
		status, msgs := c.post(pingBody)
		if status != http.StatusBadRequest || len(msgs) != 1 || msgs[0].Error == nil ||
			len(msgs[0].Error.Message) > 1000 || !strings.Contains(msgs[0].Error.Message, " bytes in all)") {
			t.Errorf("%s header of %d bytes: status %d %+v, want 400 quoting it clipped", headerProtocol, len(v), status, msgs)
		}
	}
}

// A 2026-07-28 request naming a log level that does not exist is told so,
// rather than served without the log lines it asked for.
func TestModernRequestWithUnknownLogLevelIsRefused(t *testing.T) {
	c := newHTTPConn(t, startHTTP(t, newFixture(t, nil)).URL+"/mcp", nil)
	body := `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{
		"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":{},
		"io.modelcontextprotocol/logLevel":"verbose"}}}`
	req := c.request(http.MethodPost, body)
	req.Header.Set(headerProtocol, "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	resp := c.do(req)
	defer resp.Body.Close()
	msgs := readMessages(t, resp)
	if resp.StatusCode != http.StatusBadRequest || len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != codeInvalidParams ||
		!strings.Contains(msgs[0].Error.Message, `io.modelcontextprotocol/logLevel "verbose" is no logging level`) {
		t.Fatalf("logLevel verbose: status %d %+v, want 400 and -32602 naming the level", resp.StatusCode, msgs)
	}
}

// At max_connections with every connection running a request, a new client
// is answered 503 naming the setting, not reset without a word.
func TestServeHTTPBusyAtTheCapIsAnswered(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	limiter := newConnLimiter(ln, 1, hclog.NewNullLogger())
	running, release := make(chan struct{}), make(chan struct{})
	srv := &http.Server{ConnState: limiter.track, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(running)
		<-release
	})}
	go func() { _ = srv.Serve(limiter) }()
	defer srv.Close()
	defer close(release)

	busy, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, err := io.WriteString(busy, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-running

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(pingBody), pingBody)
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("client over the cap got no answer: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(body, []byte("listen.max_connections")) {
		t.Fatalf("client over the cap: %d %q, want 503 naming listen.max_connections", resp.StatusCode, body)
	}
}

// Capabilities too large for a sealed session id are the client's to fix:
// 400 and -32602, not a 503 that invites it to try the same again.
func TestSealedInitializeWithCapabilitiesTooLargeIsTheClientsFault(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.SessionKeys = [][]byte{testKey(1)} })
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	big := strings.Repeat("x", maxSealedState)
	status, msgs := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"experimental":{"blob":"` + big + `"}},"clientInfo":{"name":"t","version":"1"}}}`)
	if status != http.StatusBadRequest || len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != codeInvalidParams ||
		!strings.Contains(msgs[0].Error.Message, "capabilities are too large for a session id") {
		t.Fatalf("initialize with capabilities of %d bytes on sealed sessions: status %d %+v, want 400 and -32602 saying so", len(big), status, msgs)
	}
}

// A progress token is a string or an integer of reasonable length: each
// progress notification repeats it. Others are refused, naming it; null
// asks for no progress.
func TestProgressTokensAreChecked(t *testing.T) {
	call := func(token string) string {
		return `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"steps","arguments":{"n":2},"_meta":{"progressToken":` + token + `}}}`
	}
	for token, want := range map[string]string{
		`{"a":1}`:                                "_meta.progressToken must be a string or an integer, not an object",
		`[1]`:                                    "_meta.progressToken must be a string or an integer, not an array",
		`1.5`:                                    "_meta.progressToken must be a string or an integer, not 1.5",
		`true`:                                   "_meta.progressToken must be a string or an integer, not true",
		`"` + strings.Repeat("t", 100_000) + `"`: "_meta.progressToken is 100002 bytes long; at most 256",
	} {
		transports(t, func(t *testing.T, send exchange) {
			m := lastOf(send(t, call(token)))
			if string(m.ID) != "3" || m.Error == nil || m.Error.Code != codeInvalidParams || !strings.Contains(m.Error.Message, want) {
				t.Errorf("progress token %.20s: got id %s error %+v, want -32602 saying %q", token, m.ID, m.Error, want)
			}
		})
	}
	transports(t, func(t *testing.T, send exchange) {
		msgs := send(t, call("null"))
		if m := lastOf(msgs); m.Error != nil || string(m.ID) != "3" {
			t.Errorf("progress token null: %s %+v, want the result", m.Result, m.Error)
		}
		for _, m := range msgs {
			if m.Method == "notifications/progress" {
				t.Errorf("progress token null: got progress %s, want none", m.Params)
			}
		}
	})
}

// A client that reads nothing of a large plain JSON answer loses it once a
// write has waited streamWriteTimeout, as it would an event stream: the
// handler and the connection are not held for ever.
func TestLargeAnswerToAClientThatReadsNothingIsGivenUp(t *testing.T) {
	old := streamWriteTimeout
	streamWriteTimeout = 300 * time.Millisecond
	t.Cleanup(func() { streamWriteTimeout = old })
	f := newFixture(t, func(o *Options) {
		big := func(context.Context, json.RawMessage, protov1.CallEvents) (*protov1.Result, error) {
			return &protov1.Result{Content: []protov1.Content{{Kind: protov1.KindText, Text: strings.Repeat("x", 32<<20)}}}, nil
		}
		o.Tools = append(o.Tools, Tool{Name: "big", Description: "Answers 32 MiB of text.", Handle: big})
	})
	closed := make(chan struct{}, 16)
	ts := httptest.NewUnstartedServer(f.srv.Handler())
	ts.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateClosed {
			closed <- struct{}{}
		}
	}
	ts.Start()
	defer ts.Close()
	c := newHTTPConn(t, ts.URL+endpointPath, nil)
	c.initialize()

	conn := postUnread(t, ts.Listener.Addr().String(), c.sid,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`, headerProtocol+": 2025-11-25")
	defer conn.Close() // before ts.Close, which waits for the handler
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the server still holds the connection of a client that has read nothing of its answer, 10s on")
	}
}

// A request that is not JSON-RPC 2.0 is told what the version must be.
func TestRequestNotJSONRPC2IsToldTheVersion(t *testing.T) {
	for msg, want := range map[string]string{
		`{"id":9,"method":"ping"}`:                  `no "jsonrpc": a message must say "jsonrpc": "2.0"`,
		`{"jsonrpc":"1.0","id":9,"method":"ping"}`:  `"jsonrpc" must be "2.0", not "1.0"`,
		`{"jsonrpc":2.0,"id":9,"method":"ping"}`:    `"jsonrpc" must be a string, not a number`,
		`{"jsonrpc":"2.0 ","id":9,"method":"ping"}`: `"jsonrpc" must be "2.0", not "2.0 "`,
	} {
		transports(t, func(t *testing.T, send exchange) {
			m := lastOf(send(t, msg))
			if string(m.ID) != "9" || m.Error == nil || m.Error.Code != codeInvalidRequest || !strings.Contains(m.Error.Message, want) {
				t.Errorf("%s: got id %s error %+v, want -32600 with id 9 saying %q", msg, m.ID, m.Error, want)
			}
		})
	}
}

// A message that starts with a byte order mark is told so, not that it
// holds the character 'ï'.
func TestMessageWithByteOrderMarkIsToldSo(t *testing.T) {
	transports(t, func(t *testing.T, send exchange) {
		m := lastOf(send(t, "\xef\xbb\xbf"+`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
		if m.Error == nil || m.Error.Code != codeParseError || !strings.Contains(m.Error.Message, "byte order mark") {
			t.Errorf("message with a BOM: got id %s error %+v, want a parse error naming the byte order mark", m.ID, m.Error)
		}
	})
}

// A compressed body is refused as such, not parsed as bytes that are not
// UTF-8 (nor, merely labelled compressed, taken as plain).
func TestHTTPCompressedBodyIsRefused(t *testing.T) {
	c := newHTTPConn(t, startHTTP(t, newFixture(t, nil)).URL+"/mcp", nil)
	c.initialize()
	for _, enc := range []string{"gzip", "br"} {
		req := c.request(http.MethodPost, pingBody)
		req.Header.Set("Content-Encoding", enc)
		resp := c.do(req)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(body), `Content-Encoding "`+enc+`" is not supported`) {
			t.Errorf("Content-Encoding %s: %d %s, want 415 naming it", enc, resp.StatusCode, body)
		}
	}
}

// A tools/call, prompts/get or resources/read that names nothing is told
// so, whatever stands in for the name.
func TestRequestsNamingNothingAreToldSo(t *testing.T) {
	for _, tc := range []struct{ method, member string }{{"tools/call", "name"}, {"prompts/get", "name"}, {"resources/read", "uri"}} {
		for _, params := range []string{`{}`, `{"` + tc.member + `":""}`, `{"` + tc.member + `":7}`, `{"` + tc.member + `":null}`} {
			transports(t, func(t *testing.T, send exchange) {
				m := lastOf(send(t, `{"jsonrpc":"2.0","id":9,"method":"`+tc.method+`","params":`+params+`}`))
				want := tc.method + ` needs "` + tc.member + `"`
				if string(m.ID) != "9" || m.Error == nil || m.Error.Code != codeInvalidParams || !strings.Contains(m.Error.Message, want) {
					t.Errorf("%s with params %s: got id %s error %+v, want -32602 saying %q", tc.method, params, m.ID, m.Error, want)
				}
			})
		}
	}
}
