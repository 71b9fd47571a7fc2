package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// modernCall is a 2026-07-28 tools/call with the headers a client sends.
func modernCall(c *httpConn, id int, tool, args, extra string) (int, []message) {
	c.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s,"_meta":{
		"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{},"elicitation":{}}}}}`, id, tool, args, extra)
	req := c.request(http.MethodPost, body)
	req.Header.Set(headerProtocol, "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp := c.do(req)
	defer resp.Body.Close()
	return resp.StatusCode, readMessages(c.t, resp)
}

type inputRequired struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
	Content       json.RawMessage            `json:"content"`
}

const twoAsks = `{"asks":[
	{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}},
	{"method":"roots/list"}]}`

// askFirstRound calls "ask" and returns its input-required result.
func askFirstRound(t *testing.T, c *httpConn) inputRequired {
	t.Helper()
	status, msgs := modernCall(c, 1, "ask", twoAsks, "")
	if status != http.StatusOK || len(msgs) != 1 || msgs[0].Error != nil {
		t.Fatalf("first round: %d %+v", status, msgs)
	}
	var ir inputRequired
	if err := json.Unmarshal(msgs[0].Result, &ir); err != nil {
		t.Fatal(err)
	}
	if ir.ResultType != "input_required" || len(ir.InputRequests) != 1 || ir.RequestState == "" || ir.Content != nil {
		t.Fatalf("first round result: %s", msgs[0].Result)
	}
	return ir
}

func onlyKey(m map[string]json.RawMessage) string {
	for k := range m {
		return k
	}
	return ""
}

// TestInputRequiredRoundTrips: each retry answers what the last result
// asked; the state carries earlier answers, so the call completes after two
// rounds, with the backend's requests passed on as it wrote them.
func TestInputRequiredRoundTrips(t *testing.T) {
	c := newHTTPConn(t, startHTTP(t, newFixture(t, nil)).URL+"/mcp", nil)
	ir := askFirstRound(t, c)
	k1 := onlyKey(ir.InputRequests)
	sameJSON(t, ir.InputRequests[k1], []byte(`{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}}`))

	retry := fmt.Sprintf(`,"requestState":%q,"inputResponses":{%q:{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m"}}`, ir.RequestState, k1)
	_, msgs := modernCall(c, 2, "ask", twoAsks, retry)
	var ir2 inputRequired
	_ = json.Unmarshal(msgs[0].Result, &ir2)
	k2 := onlyKey(ir2.InputRequests)
	if ir2.ResultType != "input_required" || k2 == k1 {
		t.Fatalf("second round: %s", msgs[0].Result)
	}
	sameJSON(t, ir2.InputRequests[k2], []byte(`{"method":"roots/list","params":{}}`))

	retry = fmt.Sprintf(`,"requestState":%q,"inputResponses":{%q:{"roots":[{"uri":"file:///r"}]}}`, ir2.RequestState, k2)
	_, msgs = modernCall(c, 3, "ask", twoAsks, retry)
	res := string(msgs[0].Result)
	if !strings.Contains(res, `"resultType":"complete"`) || !strings.Contains(res, `sampled`) || !strings.Contains(res, `file:///r`) {
		t.Fatalf("last round: %s", res)
	}
}

// TestRequestStateIsCheckedOnRetry: a requestState altered, made for other
// arguments, another tool or another principal, or expired, is refused with
// the reason; one from a replica with the same key is taken.
func TestRequestStateIsCheckedOnRetry(t *testing.T) {
	key := bytes.Repeat([]byte("k"), 32)
	withKey := func(o *Options) {
		o.Tokens = []string{"t0", "t1"}
		o.InputStateKey = key
	}
	a := startHTTP(t, newFixture(t, withKey))
	b := startHTTP(t, newFixture(t, withKey))
	stranger := startHTTP(t, newFixture(t, func(o *Options) { o.Tokens = []string{"t0", "t1"} }))
	conn := func(url, token string) *httpConn {
		c := newHTTPConn(t, url+"/mcp", nil)
		c.header.Set("Authorization", "Bearer "+token)
		return c
	}
	ir := askFirstRound(t, conn(a.URL, "t0"))
	k := onlyKey(ir.InputRequests)
	answer := fmt.Sprintf(`{%q:{"role":"assistant","content":{"type":"text","text":"s"},"model":"m"}}`, k)
	retry := func(state string) string {
		return fmt.Sprintf(`,"requestState":%q,"inputResponses":%s`, state, answer)
	}
	payload, sig, _ := strings.Cut(ir.RequestState, ".")
	tampered := payload[:len(payload)-2] + "AA." + sig

	for _, tc := range []struct {
		name, url, token, tool, args, extra, want string
	}{
		{"tampered", a.URL, "t0", "ask", twoAsks, retry(tampered), "its signature matches no key of this gateway: it was altered"},
		{"other key", stranger.URL, "t0", "ask", twoAsks, retry(ir.RequestState), "or signed with a session key since rotated out or that not every replica holds"},
		{"other arguments", a.URL, "t0", "ask", `{"asks":[]}`, retry(ir.RequestState), "other arguments"},
		{"other tool", a.URL, "t0", "echo", `{"text":"x"}`, retry(ir.RequestState), `issued for tool "ask", not "echo"`},
		{"other principal", a.URL, "t1", "ask", twoAsks, retry(ir.RequestState), "another principal"},
		{"answers without state", a.URL, "t0", "ask", twoAsks, `,"inputResponses":` + answer, "without requestState"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, msgs := modernCall(conn(tc.url, tc.token), 2, tc.tool, tc.args, tc.extra)
			if status != http.StatusBadRequest || len(msgs) != 1 || msgs[0].Error == nil ||
				msgs[0].Error.Code != -32602 || !strings.Contains(msgs[0].Error.Message, tc.want) {
				t.Fatalf("status %d %+v, want -32602 %q", status, msgs, tc.want)
			}
		})
	}
	t.Run("replica with the same key", func(t *testing.T) {
		_, msgs := modernCall(conn(b.URL, "t0"), 2, "ask", twoAsks, retry(ir.RequestState))
		var ir2 inputRequired
		if len(msgs) != 1 || json.Unmarshal(msgs[0].Result, &ir2) != nil || ir2.ResultType != "input_required" ||
			len(ir2.InputRequests) != 1 || onlyKey(ir2.InputRequests) == k {
			t.Fatalf("retry on the other replica: %+v", msgs)
		}
	})
	t.Run("expired", func(t *testing.T) {
		srv := newFixture(t, withKey).srv
		args := json.RawMessage(`{"a":1}`)
		state, err := srv.sealState(inputState{Tool: "ask", Args: argsDigest(args),
			Expires: time.Now().Add(DefaultInputStateTTL).Unix()}, Principal{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.openState(state, "ask", json.RawMessage(`{ "a" : 1 }`), Principal{}, time.Now()); err != nil {
			t.Fatalf("fresh state with the same arguments spelt otherwise: %v", err)
		}
		_, err = srv.openState(state, "ask", args, Principal{}, time.Now().Add(DefaultInputStateTTL+2*time.Second))
		if err == nil || !strings.Contains(err.Error(), "expired at") {
			t.Fatalf("expired state: %v", err)
		}
	})
}

// TestStatelessHTTPHeaders: what 2026-07-28 asks of the HTTP headers, and
// the versions served.
func TestStatelessHTTPHeaders(t *testing.T) {
	url := startHTTP(t, newFixture(t, nil)).URL + "/mcp"
	body := func(version, method, params string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":"r1","method":%q,"params":{%s"_meta":{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			method, params, version)
	}
	echo := `"name":"echo","arguments":{"text":"x"},`
	for _, tc := range []struct {
		name    string
		body    string
		headers map[string]string
		status  int
		code    int
		want    string
	}{
		{"method header differs", body("2026-07-28", "tools/call", echo),
			map[string]string{headerProtocol: "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": "echo"},
			400, -32020, `Mcp-Method`},
		{"name header differs", body("2026-07-28", "tools/call", echo),
			map[string]string{headerProtocol: "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "kinds"},
			400, -32020, `"kinds" does not match body value "echo"`},
		{"no method header", body("2026-07-28", "tools/list", ""),
			map[string]string{headerProtocol: "2026-07-28"}, 400, -32020, "Mcp-Method"},
		{"no version header", body("2026-07-28", "tools/list", ""),
			map[string]string{"Mcp-Method": "tools/list"}, 400, -32020, "missing MCP-Protocol-Version header"},
		{"header and body disagree", body("2026-07-28", "tools/list", ""),
			map[string]string{headerProtocol: "2025-11-25", "Mcp-Method": "tools/list"}, 400, -32020, "does not match"},
		{"header names 2026-07-28, body nothing", `{"jsonrpc":"2.0","id":"r1","method":"tools/list"}`,
			map[string]string{headerProtocol: "2026-07-28", "Mcp-Method": "tools/list"}, 400, -32020, "declares no"},
		{"version not served", body("2027-01-01", "tools/list", ""),
			map[string]string{headerProtocol: "2027-01-01", "Mcp-Method": "tools/list"}, 400, -32022, `supported: [2026-07-28 2025-11-25 2025-06-18]`},
		{"discover", body("2026-07-28", "server/discover", ""),
			map[string]string{headerProtocol: "2026-07-28", "Mcp-Method": "server/discover"}, 200, 0,
			`"supportedVersions":["2026-07-28","2025-11-25","2025-06-18"]`},
		{"tools/list carries cache hints", body("2026-07-28", "tools/list", ""),
			map[string]string{headerProtocol: "2026-07-28", "Mcp-Method": "tools/list"}, 200, 0, `"cacheScope":"private"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newHTTPConn(t, url, nil)
			req := c.request(http.MethodPost, tc.body)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			resp := c.do(req)
			defer resp.Body.Close()
			msgs := readMessages(t, resp)
			if resp.StatusCode != tc.status || len(msgs) != 1 || string(msgs[0].ID) != `"r1"` {
				t.Fatalf("status %d, messages %+v", resp.StatusCode, msgs)
			}
			got := string(msgs[0].Result)
			if tc.code != 0 {
				if msgs[0].Error == nil || msgs[0].Error.Code != tc.code {
					t.Fatalf("error %+v, want code %d", msgs[0].Error, tc.code)
				}
				got = msgs[0].Error.Message
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("answer %q, want it to contain %q", got, tc.want)
			}
		})
	}
	t.Run("GET is not part of 2026-07-28", func(t *testing.T) {
		c := newHTTPConn(t, url, nil)
		req := c.request(http.MethodGet, "")
		req.Header.Set(headerProtocol, "2026-07-28")
		resp := c.do(req)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("status %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
		}
	})
}

// TestStatelessIDsComeBackByteForByte: a 2026-07-28 request's id and
// progress token come back as the client wrote them, over both transports.
func TestStatelessIDsComeBackByteForByte(t *testing.T) {
	ids := []string{`9007199254740993`, `12345678901234567890123`, `"\u0041\n"`, `"a&b<c>"`}
	msg := func(id string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%[1]s,"method":"tools/call","params":{"name":"steps","arguments":{"n":1},"_meta":{
			"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":%[1]s}}}`, id)
	}
	check := func(t *testing.T, id string, msgs []message) {
		t.Helper()
		if len(msgs) != 2 || msgs[0].Method != "notifications/progress" || string(lastOf(msgs).ID) != id {
			t.Fatalf("id %s: %+v", id, msgs)
		}
		var p struct{ ProgressToken json.RawMessage }
		if json.Unmarshal(msgs[0].Params, &p) != nil || string(p.ProgressToken) != id {
			t.Errorf("id %s: progress token %s", id, p.ProgressToken)
		}
	}
	t.Run("http", func(t *testing.T) {
		c := newHTTPConn(t, startHTTP(t, newFixture(t, nil)).URL+"/mcp", nil)
		for _, id := range ids {
			req := c.request(http.MethodPost, msg(id))
			req.Header.Set(headerProtocol, "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "steps")
			resp := c.do(req)
			check(t, id, readMessages(t, resp))
			resp.Body.Close()
		}
	})
	t.Run("stdio", func(t *testing.T) {
		c, done := startStdio(t, newFixture(t, nil))
		for _, id := range ids {
			c.send("%s", strings.ReplaceAll(msg(id), "\n", ""))
			check(t, id, []message{c.recv(), c.recv()})
		}
		finish(t, c, done)
	})
}
