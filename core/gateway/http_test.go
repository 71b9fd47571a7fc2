package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func startHTTP(t *testing.T, f *fixture) *httptest.Server {
	ts := httptest.NewServer(f.srv.Handler())
	t.Cleanup(func() {
		f.srv.Close()
		ts.Close()
	})
	return ts
}

func callBody(id int, tool, args string, token string) string {
	meta := ""
	if token != "" {
		meta = fmt.Sprintf(`,"_meta":{"progressToken":%s}`, token)
	}
	if args == "" {
		args = "{}"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, id, tool, args, meta)
}

func sameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v: %s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("JSON differs\n got: %s\nwant: %s", got, want)
	}
}

func TestHTTPToolsListIsExactlyTheOptions(t *testing.T) {
	f := newFixture(t, nil)
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	c.initialize()
	_, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var list struct {
		Tools []json.RawMessage
	}
	if err := json.Unmarshal(msgs[0].Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, raw := range list.Tools {
		var tool struct{ Name string }
		_ = json.Unmarshal(raw, &tool)
		names = append(names, tool.Name)
	}
	if !reflect.DeepEqual(names, toolNames) {
		t.Fatalf("tools/list names = %v, want %v in that order", names, toolNames)
	}
	sameJSON(t, list.Tools[0], []byte(`{"name":"echo","description":"Echoes its text argument.",
		"inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},
		"annotations":{"readOnlyHint":true,"openWorldHint":false}}`))
	sameJSON(t, list.Tools[1], []byte(`{"name":"kinds","title":"Every kind","description":"Returns every content kind.",
		"inputSchema":{"type":"object"},"annotations":{}}`))
}

func TestHTTPResultIsLossless(t *testing.T) {
	f := newFixture(t, nil)
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	c.initialize()
	_, msgs := c.post(callBody(1, "kinds", "", ""))
	sameJSON(t, msgs[0].Result, []byte(kindsWire()))

	// Numbers beyond float64 and fields no MCP type knows come out byte for byte.
	_, msgs = c.post(callBody(2, "bignum", "", ""))
	for _, want := range []string{
		`"structuredContent":{"id":12345678901234567890123}`,
		`"big":98765432109876543210`,
		`"x-unknown":{"nested":[1,2]}`,
		`"annotations":{"priority":1,"x-future":{"a":1}}`,
	} {
		if !bytes.Contains(msgs[0].Result, []byte(want)) {
			t.Errorf("result lacks %s: %s", want, msgs[0].Result)
		}
	}
}

func TestHTTPFailuresAreIsErrorResults(t *testing.T) {
	f := newFixture(t, nil)
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	c.initialize()
	for _, tc := range []struct{ tool, want string }{
		{"fail", "backend exploded"},
		{"explode", `tool "explode" failed with an internal error: handler bug`},
		{"x_everything_echo", `x_everything_echo is reached through call_tool: {"name":"x_everything_echo"}`},
	} {
		status, msgs := c.post(callBody(1, tc.tool, "", ""))
		if status != http.StatusOK || len(msgs) != 1 {
			t.Fatalf("%s: status %d, %d messages", tc.tool, status, len(msgs))
		}
		var res struct {
			IsError bool
			Content []struct{ Type, Text string }
		}
		if err := json.Unmarshal(msgs[0].Result, &res); err != nil || msgs[0].Error != nil {
			t.Fatalf("%s: %s %+v", tc.tool, msgs[0].Result, msgs[0].Error)
		}
		if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != tc.want {
			t.Errorf("%s: got %s, want isError with text %q", tc.tool, msgs[0].Result, tc.want)
		}
	}
}

func TestHTTPProgressTravelsOnThePostStreamBeforeTheResult(t *testing.T) {
	f := newFixture(t, nil)
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	c.initialize()
	// A listening stream is open, as real clients keep one: progress must
	// still go on the POST that made the call.
	get := c.request(http.MethodGet, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listen := c.do(get.WithContext(ctx))
	defer listen.Body.Close()

	_, msgs := c.post(callBody(9, "steps", `{"n":3}`, `"p9"`))
	var seen []string
	for _, m := range msgs {
		switch m.Method {
		case "notifications/progress":
			seen = append(seen, "progress "+string(m.Params))
		case "notifications/message":
			seen = append(seen, "log")
		default:
			seen = append(seen, "result "+string(m.ID))
		}
	}
	want := []string{
		"log",
		`progress {"message":"step 1","progress":1,"progressToken":"p9","total":3}`,
		`progress {"message":"step 2","progress":2,"progressToken":"p9","total":3}`,
		`progress {"message":"step 3","progress":3,"progressToken":"p9","total":3}`,
		"result 9",
	}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("POST stream carried\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

func TestHTTPCancelledCallEndsWithoutAnswer(t *testing.T) {
	f := newFixture(t, nil)
	c := newHTTPConn(t, startHTTP(t, f).URL+"/mcp", nil)
	c.initialize()
	resp := c.do(c.request(http.MethodPost, callBody(3, "block", "", "3")))
	defer resp.Body.Close()
	ev := newEventReader(resp.Body)
	first, err := ev.next()
	if err != nil || !bytes.Contains(first, []byte(`"notifications/progress"`)) {
		t.Fatalf("first event %s, %v; want block's progress", first, err)
	}
	<-f.started
	if status, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`); status != http.StatusAccepted {
		t.Fatalf("cancel: status %d", status)
	}
	select {
	case err := <-f.cancelled:
		if err != context.Canceled {
			t.Fatalf("handler saw %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled did not reach the handler")
	}
	if data, err := ev.next(); err == nil {
		t.Fatalf("cancelled call's stream carried %s after cancellation", data)
	}
}

func TestHTTPSessions(t *testing.T) {
	f := newFixture(t, nil)
	url := startHTTP(t, f).URL + "/mcp"

	c := newHTTPConn(t, url, nil)
	if status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != http.StatusBadRequest || msgs[0].Error == nil {
		t.Errorf("request without session: status %d %+v, want 400 with a JSON-RPC error", status, msgs)
	}
	c.sid = "0123456789abcdef"
	if status, _ := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != http.StatusNotFound {
		t.Errorf("unknown session: status %d, want 404", status)
	}
	c.sid = ""
	c.initialize()
	c.header.Set(headerProtocol, "1999-01-01")
	if status, _ := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); status != http.StatusBadRequest {
		t.Errorf("unsupported protocol version: status %d, want 400", status)
	}
	c.header.Set(headerProtocol, "2025-06-18")
	if status, msgs := c.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); status != http.StatusOK || msgs[0].Error != nil {
		t.Errorf("ping: status %d %+v", status, msgs)
	}
	for method, want := range map[string]int{http.MethodPut: http.StatusMethodNotAllowed, http.MethodDelete: http.StatusNoContent} {
		resp := c.do(c.request(method, ""))
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", method, resp.StatusCode, want)
		}
	}
	if status, _ := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); status != http.StatusNotFound {
		t.Errorf("after DELETE: status %d, want 404", status)
	}
}

func TestHTTPListeningStreamGetsLogsAndSubscribedUpdates(t *testing.T) {
	f := newFixture(t, nil)
	url := startHTTP(t, f).URL + "/mcp"
	sub := newHTTPConn(t, url, nil)
	sub.initialize()
	other := newHTTPConn(t, url, nil)
	other.initialize()
	silent := newHTTPConn(t, url, nil)
	silent.initialize()

	if _, msgs := sub.post(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"toolgate://catalog"}}`); msgs[0].Error != nil {
		t.Fatalf("subscribe: %+v", msgs[0].Error)
	}
	if _, msgs := sub.post(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"toolgate://nope"}}`); msgs[0].Error == nil {
		t.Errorf("subscribe to an unknown resource succeeded")
	}
	if _, msgs := sub.post(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"toolgate://catalog"}}`); !bytes.Contains(msgs[0].Result, []byte(`"text":"{\"tools\":9}"`)) {
		t.Errorf("read: %s", msgs[0].Result)
	}

	if _, msgs := silent.post(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"toolgate://catalog"}}`); msgs[0].Error != nil {
		t.Fatalf("subscribe: %+v", msgs[0].Error)
	}
	if _, msgs := sub.post(`{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"info"}}`); msgs[0].Error != nil {
		t.Fatalf("setLevel: %+v", msgs[0].Error)
	}

	streams := map[string]*eventReader{}
	for name, c := range map[string]*httpConn{"sub": sub, "other": other, "silent": silent} {
		resp := c.do(c.request(http.MethodGet, ""))
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("GET: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		streams[name] = newEventReader(resp.Body)
	}
	if _, msgs := other.post(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"error"}}`); msgs[0].Error != nil {
		t.Fatalf("setLevel: %+v", msgs[0].Error)
	}
	f.srv.ResourceUpdated(catalogURI)
	f.srv.NotifyLog("warning", map[string]string{"msg": "hello"})
	f.srv.NotifyLog("error", "boom")
	f.srv.NotifyPluginLog("hello", "error", "plugin boom")
	f.srv.ResourceUpdated(catalogURI)

	next := func(name string) string {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			data, err := streams[name].next()
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(data)
		}()
		select {
		case s := <-got:
			return s
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no event within 5s", name)
		}
		return ""
	}
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"toolgate://catalog"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"msg":"hello"},"level":"warning","logger":"toolgate-test"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"boom","level":"error","logger":"toolgate-test"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"plugin":"hello","data":"plugin boom"},"level":"error","logger":"toolgate-test"}}`,
	} {
		sameJSON(t, []byte(next("sub")), []byte(want))
	}
	// other did not subscribe and asked for errors only.
	sameJSON(t, []byte(next("other")), []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"boom","level":"error","logger":"toolgate-test"}}`))
	sameJSON(t, []byte(next("other")), []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"plugin":"hello","data":"plugin boom"},"level":"error","logger":"toolgate-test"}}`))
	// silent never sent logging/setLevel: the gateway's own notices at its
	// default level, and no plugin log.
	for _, want := range []string{
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"toolgate://catalog"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"msg":"hello"},"level":"warning","logger":"toolgate-test"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"boom","level":"error","logger":"toolgate-test"}}`,
		`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"toolgate://catalog"}}`,
	} {
		sameJSON(t, []byte(next("silent")), []byte(want))
	}
}
