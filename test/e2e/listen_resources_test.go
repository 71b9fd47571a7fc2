package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// updates collects the notifications/resources/updated one Go SDK client
// gets, by URI.
type updates struct {
	mu  sync.Mutex
	got map[string]int
}

func (u *updates) add(uri string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.got[uri]++
}

func (u *updates) count(uri string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.got[uri]
}

// connectListener connects the official Go SDK client on 2026-07-28 (its
// newest); its Subscribe opens a subscriptions/listen whose
// resourceSubscriptions name the URI, and Unsubscribe closes that stream.
func connectListener(ctx context.Context, t *testing.T, url, name string) (*gomcp.ClientSession, *updates) {
	t.Helper()
	u := &updates{got: map[string]int{}}
	c := gomcp.NewClient(&gomcp.Implementation{Name: name, Version: "1.0.0"}, &gomcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *gomcp.ResourceUpdatedNotificationRequest) { u.add(r.Params.URI) },
	})
	cs, err := c.Connect(ctx, &gomcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("%s: connect: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("%s negotiated %s, want 2026-07-28", name, v)
	}
	return cs, u
}

// pluginLog is a raw 2026-07-28 listen that names a log level, so the
// plugins' log lines come on it: server-everything logs every
// resources/subscribe and resources/unsubscribe it receives.
type pluginLog struct {
	mu    sync.Mutex
	lines []string
}

// postListen sends a raw 2026-07-28 subscriptions/listen.
func postListen(ctx context.Context, t *testing.T, url, notifications, meta string) (*http.Response, *http.Transport) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"raw","method":"subscriptions/listen","params":{"notifications":` + notifications + `,
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}` + meta + `}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	tr := &http.Transport{}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp, tr
}

func listenToPluginLogs(ctx context.Context, t *testing.T, url string) *pluginLog {
	t.Helper()
	resp, tr := postListen(ctx, t, url, `{"toolsListChanged":true}`, `,"io.modelcontextprotocol/logLevel":"info"`)
	l := &pluginLog{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal([]byte(data), &m) == nil && m.Method == "notifications/message" {
				l.mu.Lock()
				l.lines = append(l.lines, string(m.Params))
				l.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		resp.Body.Close()
		<-done
		tr.CloseIdleConnections()
	})
	return l
}

// count says how many log lines contain s.
func (l *pluginLog) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// eventually waits up to d for cond.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("within %s: %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestListenResourceSubscriptionsServerEverything: 2026-07-28 clients of the
// official Go SDK subscribe through subscriptions/listen to resources of
// server-everything behind mcp-stdio. Each URI is subscribed at the server
// once, however many streams watch it; its periodic updates reach only the
// streams that asked for that URI; when the last stream watching a URI
// closes, the server is told to unsubscribe it. A URI nobody serves fails
// the listen, named.
func TestListenResourceSubscriptionsServerEverything(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true)})
	const three, four = "demo://resource/dynamic/text/3", "demo://resource/dynamic/text/4"
	subscribeLine := func(uri string) string { return "Received Subscribe Resource request for URI: " + uri }
	unsubscribeLine := func(uri string) string { return "Received Unsubscribe Resource request: " + uri }

	logs := listenToPluginLogs(ctx, t, g.URL)
	a, aGot := connectListener(ctx, t, g.URL, "listener-a")
	b, bGot := connectListener(ctx, t, g.URL, "listener-b")

	// server-everything sends updates of its subscribed resources every 5 s
	// once this tool has turned them on.
	// It is retried while the plugin is still starting.
	for deadline := time.Now().Add(60 * time.Second); ; {
		res, err := a.CallTool(ctx, &gomcp.CallToolParams{Name: "call_tool",
			Arguments: map[string]any{"name": "x_everything_toggle-subscriber-updates", "arguments": map[string]any{}}})
		if err != nil {
			t.Fatalf("toggle-subscriber-updates: %v", err)
		}
		if !res.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("toggle-subscriber-updates: %s", goText(res))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, s := range []struct {
		c   *gomcp.ClientSession
		uri string
	}{{a, three}, {b, three}, {b, four}} {
		if err := s.c.Subscribe(ctx, &gomcp.SubscribeParams{URI: s.uri}); err != nil {
			t.Fatalf("subscribe %s: %v", s.uri, err)
		}
	}
	eventually(t, 20*time.Second, "each stream gets the updates of its URIs", func() bool {
		return aGot.count(three) > 0 && bGot.count(three) > 0 && bGot.count(four) > 0
	})
	if n := aGot.count(four); n != 0 {
		t.Errorf("listener-a got %d updates of %s, which it never asked for", n, four)
	}
	eventually(t, 5*time.Second, "the server logs the subscriptions", func() bool {
		return logs.count(subscribeLine(three)) > 0 && logs.count(subscribeLine(four)) > 0
	})
	if n := logs.count(subscribeLine(three)); n != 1 {
		t.Errorf("the server was asked %d times to subscribe %s, want once for both streams", n, three)
	}

	// a leaves: b still watches three, so the server keeps it.
	if err := a.Unsubscribe(ctx, &gomcp.UnsubscribeParams{URI: three}); err != nil {
		t.Fatal(err)
	}
	before := bGot.count(three)
	eventually(t, 15*time.Second, "listener-b still gets "+three, func() bool { return bGot.count(three) > before })
	if n := logs.count(unsubscribeLine(three)); n != 0 {
		t.Fatalf("the server was told to unsubscribe %s while listener-b still watched it", three)
	}

	// b's stream of three closes: the last watcher, so the server hears it;
	// four stays.
	if err := b.Unsubscribe(ctx, &gomcp.UnsubscribeParams{URI: three}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the server is told to unsubscribe "+three, func() bool { return logs.count(unsubscribeLine(three)) == 1 })
	if n := logs.count(unsubscribeLine(four)); n != 0 {
		t.Fatalf("the server was told to unsubscribe %s, still watched", four)
	}

	// b goes away altogether: its remaining stream ends with it.
	b.Close()
	eventually(t, 10*time.Second, "the server is told to unsubscribe "+four, func() bool { return logs.count(unsubscribeLine(four)) == 1 })

	// The Go SDK does not wait for a listen's answer, so this one is raw.
	resp, tr := postListen(ctx, t, g.URL, `{"resourceSubscriptions":["`+three+`","nowhere://at/all"]}`, "")
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	tr.CloseIdleConnections()
	var refused struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err != nil || json.Unmarshal(raw, &refused) != nil || refused.Error == nil || refused.Error.Code != -32602 ||
		!strings.Contains(refused.Error.Message, "nowhere://at/all") {
		t.Errorf("a listen naming a URI nobody serves answered %d %s (%v), want -32602 naming it", resp.StatusCode, raw, err)
	}
	time.Sleep(500 * time.Millisecond)
	if n := logs.count(subscribeLine(three)); n != 1 {
		t.Errorf("the refused listen still subscribed %s at the server (%d subscriptions in all)", three, n)
	}
	g.requireAlive()
}
