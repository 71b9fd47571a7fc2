package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// pickyLibrary is a library whose plugin refuses some URIs and holds the
// subscription of others until released.
type pickyLibrary struct {
	*library
	refuse map[string]bool
	hold   map[string]chan struct{}
}

func (l *pickyLibrary) SubscribeResource(ctx context.Context, uri string) error {
	err := l.library.SubscribeResource(ctx, uri)
	if l.refuse[uri] {
		return fmt.Errorf("plugin %q: resources/subscribe %s: the server does not offer resource subscriptions", "mem", uri)
	}
	if ch := l.hold[uri]; ch != nil {
		<-ch
	}
	return err
}

// listenStream is one open 2026-07-28 subscriptions/listen over HTTP.
type listenStream struct {
	t    *testing.T
	resp *http.Response
	ev   *eventReader
}

func openListen(t *testing.T, url, id string, filter string) *listenStream {
	t.Helper()
	c := newHTTPConn(t, url, nil)
	req := c.request(http.MethodPost, `{"jsonrpc":"2.0","id":"`+id+`","method":"subscriptions/listen","params":{
		"notifications":`+filter+`,
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	req.Header.Set(headerProtocol, "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp := c.do(req)
	t.Cleanup(func() { resp.Body.Close() })
	return &listenStream{t: t, resp: resp, ev: newEventReader(resp.Body)}
}

func (l *listenStream) next() message {
	l.t.Helper()
	if !strings.HasPrefix(l.resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(l.resp.Body)
		return decodeMessage(l.t, b)
	}
	data, err := l.ev.next()
	if err != nil {
		l.t.Fatalf("listen stream: %v", err)
	}
	return decodeMessage(l.t, data)
}

// ack reads the acknowledgement and returns its params.
func (l *listenStream) ack() string {
	l.t.Helper()
	m := l.next()
	if m.Method != "notifications/subscriptions/acknowledged" {
		l.t.Fatalf("first message %s %s %+v, want the acknowledgement", m.Method, m.Params, m.Error)
	}
	return string(m.Params)
}

// waitCalls waits until the source was called exactly as want says, in any
// order, and stays so for a moment.
func waitCalls(t *testing.T, lib *library, want ...string) {
	t.Helper()
	slices.Sort(want)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := lib.recorded()
		slices.Sort(got)
		if reflect.DeepEqual(got, want) || len(got) == 0 && len(want) == 0 {
			time.Sleep(50 * time.Millisecond)
			if again := lib.recorded(); len(again) == len(got) {
				return
			}
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("source calls = %v, want %v", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// noSubscriptions checks that the gateway holds no count for any resource.
func noSubscriptions(t *testing.T, f *fixture) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.srv.native.subsMu.Lock()
		subs, sessions := len(f.srv.native.subs), len(f.srv.native.bySession)
		f.srv.native.subsMu.Unlock()
		if subs == 0 && sessions == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after every stream ended the gateway still counts %d resources of %d sessions", subs, sessions)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestListenResourceSubscriptionsReachThePlugin: a listen's
// resourceSubscriptions are subscribed at the source once, sharing the count
// with legacy sessions; updates reach only the streams that asked for them;
// a stream that ends releases what it held, and the last leaver unsubscribes.
func TestListenResourceSubscriptionsReachThePlugin(t *testing.T) {
	lib := &library{resources: []protov1.Resource{{URI: "mem://a", Name: "a", Size: -1}},
		templates: []protov1.ResourceTemplate{{URITemplate: "mem://t/{id}", Name: "t"}}}
	f, url := nativeFixture(t, lib)

	one := openListen(t, url, "L1", `{"resourceSubscriptions":["mem://a","mem://t/9","mem://a"]}`)
	if ack := one.ack(); !strings.Contains(ack, `"resourceSubscriptions":["mem://a","mem://t/9"]`) {
		t.Fatalf("acknowledgement %s, want both URIs once, in the order asked", ack)
	}
	waitCalls(t, lib, "subscribe mem://a", "subscribe mem://t/9")

	legacy := newHTTPConn(t, url, nil)
	legacy.initialize()
	result[map[string]any](t, legacy, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"mem://a"}}`)
	two := openListen(t, url, "L2", `{"resourceSubscriptions":["mem://t/9"]}`)
	two.ack()
	waitCalls(t, lib, "subscribe mem://a", "subscribe mem://t/9")

	f.srv.ResourceUpdated("mem://a")
	f.srv.ResourceUpdated("mem://t/9")
	for _, want := range []string{"mem://a", "mem://t/9"} {
		if m := one.next(); m.Method != "notifications/resources/updated" || !strings.Contains(string(m.Params), `"uri":"`+want+`"`) ||
			!strings.Contains(string(m.Params), `"io.modelcontextprotocol/subscriptionId":"L1"`) {
			t.Fatalf("L1 got %s %s, want the update of %s", m.Method, m.Params, want)
		}
	}
	// L2 asked only for mem://t/9: mem://a's update never reaches it.
	if m := two.next(); !strings.Contains(string(m.Params), `"uri":"mem://t/9"`) || !strings.Contains(string(m.Params), `"io.modelcontextprotocol/subscriptionId":"L2"`) {
		t.Fatalf("L2 got %s %s, want only mem://t/9's update", m.Method, m.Params)
	}

	// L1's client goes away: the others still hold both URIs.
	one.resp.Body.Close()
	waitCalls(t, lib, "subscribe mem://a", "subscribe mem://t/9")
	two.resp.Body.Close()
	waitCalls(t, lib, "subscribe mem://a", "subscribe mem://t/9", "unsubscribe mem://t/9")
	result[map[string]any](t, legacy, `{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"mem://a"}}`)
	waitCalls(t, lib, "subscribe mem://a", "subscribe mem://t/9", "unsubscribe mem://t/9", "unsubscribe mem://a")
	noSubscriptions(t, f)
}

// TestListenResourceSubscriptionsRefused: an unknown URI fails the listen
// with -32602 naming it and subscribes nothing; a URI whose plugin refuses
// is left out of the acknowledgement and released at once.
func TestListenResourceSubscriptionsRefused(t *testing.T) {
	lib := &pickyLibrary{library: &library{}, refuse: map[string]bool{"mem://no": true}}
	f := newFixture(t, func(o *Options) { o.PluginResources = lib })
	url := startHTTP(t, f).URL + "/mcp"

	m := openListen(t, url, "U", `{"resourceSubscriptions":["mem://a","nowhere://x"]}`).next()
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "nowhere://x") {
		t.Fatalf("listen with an unknown URI answered %+v %s, want -32602 naming nowhere://x", m.Error, m.Params)
	}
	waitCalls(t, lib.library)

	l := openListen(t, url, "R", `{"resourceSubscriptions":["mem://a","mem://no"]}`)
	if ack := l.ack(); !strings.Contains(ack, `"resourceSubscriptions":["mem://a"]`) {
		t.Fatalf("acknowledgement %s, want mem://a alone: the plugin refused mem://no", ack)
	}
	waitCalls(t, lib.library, "subscribe mem://a", "subscribe mem://no", "unsubscribe mem://no")
	f.srv.ResourceUpdated("mem://no")
	f.srv.ResourceUpdated("mem://a")
	if m := l.next(); !strings.Contains(string(m.Params), `"uri":"mem://a"`) {
		t.Fatalf("got %s %s, want mem://a's update (mem://no was not acknowledged)", m.Method, m.Params)
	}
	l.resp.Body.Close()
	waitCalls(t, lib.library, "subscribe mem://a", "subscribe mem://no", "unsubscribe mem://no", "unsubscribe mem://a")
	noSubscriptions(t, f)
}

// TestListenClosedWhileSubscribing: a client that goes away while its
// plugin is still taking the subscription leaves none behind.
func TestListenClosedWhileSubscribing(t *testing.T) {
	release := make(chan struct{})
	lib := &pickyLibrary{library: &library{}, hold: map[string]chan struct{}{"mem://slow": release}}
	f := newFixture(t, func(o *Options) { o.PluginResources = lib })
	url := startHTTP(t, f).URL + "/mcp"

	// The answer's headers go out with the acknowledgement, which waits for
	// the plugin: the client gives up before either comes.
	ctx, cancel := context.WithCancel(context.Background())
	c := newHTTPConn(t, url, nil)
	req := c.request(http.MethodPost, `{"jsonrpc":"2.0","id":"S","method":"subscriptions/listen","params":{
		"notifications":{"resourceSubscriptions":["mem://slow"]},
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	req.Header.Set(headerProtocol, "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	gone := make(chan error, 1)
	go func() {
		resp, err := c.hc.Do(req.WithContext(ctx))
		if err == nil {
			resp.Body.Close()
		}
		gone <- err
	}()
	waitCalls(t, lib.library, "subscribe mem://slow")
	cancel()
	if err := <-gone; err == nil {
		t.Fatal("the listen was answered while its plugin still held the subscription")
	}
	close(release)
	waitCalls(t, lib.library, "subscribe mem://slow", "unsubscribe mem://slow")
	noSubscriptions(t, f)
}

// TestListenWithoutNativeResources: with plugin resources not served
// (gateway { native_resources = false }) a plugin's URI is unknown to a
// listen as to resources/subscribe, while the gateway's own resources can
// still be listened to.
func TestListenWithoutNativeResources(t *testing.T) {
	f := newFixture(t, nil)
	url := startHTTP(t, f).URL + "/mcp"
	m := openListen(t, url, "N", `{"resourceSubscriptions":["mem://a"]}`).next()
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "mem://a") {
		t.Fatalf("listen to a plugin resource not served answered %+v %s, want -32602 naming mem://a", m.Error, m.Params)
	}
	l := openListen(t, url, "C", `{"resourceSubscriptions":["`+catalogURI+`"]}`)
	if ack := l.ack(); !strings.Contains(ack, `"resourceSubscriptions":["`+catalogURI+`"]`) {
		t.Fatalf("acknowledgement %s, want %s", ack, catalogURI)
	}
	f.srv.ResourceUpdated(catalogURI)
	if m := l.next(); !strings.Contains(string(m.Params), `"uri":"`+catalogURI+`"`) {
		t.Fatalf("got %s %s, want the catalog's update", m.Method, m.Params)
	}
}

// TestListenEndsAtTokenExpiry: a listen opened with an access token that
// expires ends when it does, with its result, and its resource
// subscriptions are released at the plugin; another principal's listen of
// its own resource goes on and gets only its own updates.
func TestListenEndsAtTokenExpiry(t *testing.T) {
	as := newAuthServer(t)
	lib := &library{}
	f := newFixture(t, func(o *Options) {
		o.OAuth = &OAuth{Issuer: as.URL, Audience: testAudience, Scopes: []string{"mcp"}}
		o.PluginResources = lib
	})
	url := startHTTP(t, f).URL + "/mcp"
	token := func(sub string, life time.Duration) string {
		c := as.claims()
		c["sub"], c["exp"] = sub, time.Now().Add(life).Unix()
		return "Bearer " + as.sign(jwt.SigningMethodRS256, "rsa-1", c)
	}
	listenAs := func(auth, id, uri string) *listenStream {
		c := newHTTPConn(t, url, nil)
		c.header.Set("Authorization", auth)
		req := c.request(http.MethodPost, `{"jsonrpc":"2.0","id":"`+id+`","method":"subscriptions/listen","params":{
			"notifications":{"resourceSubscriptions":["`+uri+`"]},
			"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		req.Header.Set(headerProtocol, "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		resp := c.do(req)
		t.Cleanup(func() { resp.Body.Close() })
		l := &listenStream{t: t, resp: resp, ev: newEventReader(resp.Body)}
		l.ack()
		return l
	}
	alice := listenAs(token("alice", 2*time.Second), "A", "mem://alice")
	bob := listenAs(token("bob", time.Hour), "B", "mem://bob")
	waitCalls(t, lib, "subscribe mem://alice", "subscribe mem://bob")

	f.srv.ResourceUpdated("mem://alice")
	f.srv.ResourceUpdated("mem://bob")
	if m := bob.next(); !strings.Contains(string(m.Params), `"uri":"mem://bob"`) {
		t.Fatalf("bob got %s %s, want only his own resource's update", m.Method, m.Params)
	}
	if m := alice.next(); !strings.Contains(string(m.Params), `"uri":"mem://alice"`) {
		t.Fatalf("alice got %s %s, want only her own resource's update", m.Method, m.Params)
	}
	type event struct {
		data []byte
		err  error
	}
	ended := make(chan event, 1)
	go func() {
		data, err := alice.ev.next()
		ended <- event{data, err}
	}()
	select {
	case e := <-ended:
		if e.err != nil {
			t.Fatalf("alice's listen ended without its result: %v", e.err)
		}
		if m := decodeMessage(t, e.data); string(m.ID) != `"A"` || m.Result == nil {
			t.Fatalf("alice's listen ended with %+v, want its result", m)
		}
	case <-time.After(5 * time.Second):
		alice.resp.Body.Close()
		<-ended
		t.Fatal("alice's listen still open 5s after a token that expires in 2s")
	}
	waitCalls(t, lib, "subscribe mem://alice", "subscribe mem://bob", "unsubscribe mem://alice")
	f.srv.ResourceUpdated("mem://bob")
	if m := bob.next(); !strings.Contains(string(m.Params), `"uri":"mem://bob"`) {
		t.Fatalf("bob got %s %s after alice's listen ended", m.Method, m.Params)
	}
}

// TestListenResourcesOverStdio: over stdio a listen's resources are
// subscribed at the source too, and released when the client cancels the
// listen with notifications/cancelled.
func TestListenResourcesOverStdio(t *testing.T) {
	lib := &library{}
	f := newFixture(t, func(o *Options) { o.PluginResources = lib })
	c, done := startStdio(t, f)
	c.send(`{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["mem://a"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if m := c.recv(); m.Method != "notifications/subscriptions/acknowledged" || !strings.Contains(string(m.Params), `"resourceSubscriptions":["mem://a"]`) {
		t.Fatalf("acknowledgement: %s %s", m.Method, m.Params)
	}
	waitCalls(t, lib, "subscribe mem://a")
	f.srv.ResourceUpdated("mem://a")
	if m := c.recv(); m.Method != "notifications/resources/updated" || !strings.Contains(string(m.Params), `"io.modelcontextprotocol/subscriptionId":9`) {
		t.Fatalf("got %s %s, want mem://a's update on listen 9", m.Method, m.Params)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	waitCalls(t, lib, "subscribe mem://a", "unsubscribe mem://a")
	noSubscriptions(t, f)
	if rest := finish(t, c, done); len(rest) != 0 {
		t.Errorf("after the cancel: %+v", rest)
	}
}

// TestListenSendsNothingBeforeItsAcknowledgement: a broadcast that reaches
// a listen while its plugin is still taking the subscription waits for the
// acknowledgement.
func TestListenSendsNothingBeforeItsAcknowledgement(t *testing.T) {
	release := make(chan struct{})
	lib := &pickyLibrary{library: &library{}, hold: map[string]chan struct{}{"mem://slow": release}}
	f := newFixture(t, func(o *Options) { o.PluginResources = lib })
	url := startHTTP(t, f).URL + "/mcp"
	go func() {
		defer close(release)
		for deadline := time.Now().Add(5 * time.Second); len(lib.recorded()) == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		f.srv.NotifyLog("error", "while subscribing")
	}()
	c := newHTTPConn(t, url, nil)
	req := c.request(http.MethodPost, `{"jsonrpc":"2.0","id":"E","method":"subscriptions/listen","params":{
		"notifications":{"resourceSubscriptions":["mem://slow"]},
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}`)
	req.Header.Set(headerProtocol, "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp := c.do(req)
	defer resp.Body.Close()
	l := &listenStream{t: t, resp: resp, ev: newEventReader(resp.Body)}
	l.ack()
	if m := l.next(); m.Method != "notifications/message" || !strings.Contains(string(m.Params), "while subscribing") {
		t.Fatalf("after the acknowledgement: %s %s, want the log line that came before it", m.Method, m.Params)
	}
}
