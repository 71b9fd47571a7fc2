package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// library is a small in-memory prompt, resource and completion source: the
// gateway's handling of them is what is under test.
type library struct {
	mu        sync.Mutex
	prompts   []protov1.Prompt
	resources []protov1.Resource
	templates []protov1.ResourceTemplate
	calls     []string // subscribe / unsubscribe calls, in order
}

func (l *library) ListPrompts() []protov1.Prompt {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]protov1.Prompt(nil), l.prompts...)
}

func (l *library) GetPrompt(_ context.Context, name string, args map[string]string) (*protov1.PromptResult, error) {
	if args["who"] == "" {
		return nil, &missingArgument{name}
	}
	return &protov1.PromptResult{Description: "greeting", Messages: []protov1.PromptMessage{
		{Role: "user", Content: protov1.Content{Kind: protov1.KindText, Text: "Greet " + args["who"]}},
		{Role: "assistant", Content: protov1.Content{Kind: protov1.KindResource, Resource: &protov1.ResourceContents{URI: "mem://a", Blob: []byte{0, 1}}}},
	}}, nil
}

// missingArgument is a prompts/get without the argument the prompt needs:
// the client's mistake, as the real library's native.ArgumentError says.
type missingArgument struct{ prompt string }

func (e *missingArgument) Error() string { return "prompt " + e.prompt + ": argument who is required" }
func (e *missingArgument) Unwrap() error { return protov1.ErrInvalidArgument }

func (l *library) ListResources() ([]protov1.Resource, []protov1.ResourceTemplate) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]protov1.Resource(nil), l.resources...), append([]protov1.ResourceTemplate(nil), l.templates...)
}

func (l *library) ReadResource(_ context.Context, uri string) ([]protov1.ResourceContents, error) {
	switch uri {
	case "mem://t/missing":
		return nil, protov1.NotFoundf("no resource %q", uri)
	case "mem://t/bad":
		return nil, protov1.InvalidArgumentf("id must be a number")
	case "mem://t/broken":
		return nil, errors.New("the backend fell over")
	}
	return []protov1.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "contents of " + uri}}, nil
}

func (l *library) Routes(uri string) bool { return strings.HasPrefix(uri, "mem://") }

func (l *library) UnknownPrompt(name string) error {
	for _, p := range l.ListPrompts() {
		if p.Name == name {
			return nil
		}
	}
	return protov1.NotFoundf("no prompt %q", name)
}

func (l *library) UnknownResource(uri string) error {
	if l.Routes(uri) {
		return nil
	}
	return protov1.NotFoundf("no resource %q", uri)
}

func (l *library) SubscribeResource(_ context.Context, uri string) error {
	l.record("subscribe " + uri)
	return nil
}

func (l *library) UnsubscribeResource(_ context.Context, uri string) error {
	l.record("unsubscribe " + uri)
	return nil
}

func (l *library) record(call string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, call)
}

func (l *library) recorded() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

func (l *library) Complete(_ context.Context, req *protov1.CompleteRequest) (*protov1.Completion, error) {
	var out protov1.Completion
	for i := range 150 {
		out.Values = append(out.Values, fmt.Sprintf("%s%s-%d", req.Value, req.Argument, i))
	}
	out.Total = 150
	return &out, nil
}

func nativeFixture(t *testing.T, lib *library) (*fixture, string) {
	f := newFixture(t, func(o *Options) {
		o.Prompts, o.PluginResources, o.Completions = lib, lib, lib
	})
	return f, startHTTP(t, f).URL + "/mcp"
}

func result[T any](t *testing.T, c *httpConn, body string) T {
	t.Helper()
	_, msgs := c.post(body)
	if len(msgs) != 1 || msgs[0].Error != nil {
		t.Fatalf("%s: %+v", body, msgs)
	}
	var out T
	if err := json.Unmarshal(msgs[0].Result, &out); err != nil {
		t.Fatalf("%s: decode %s: %v", body, msgs[0].Result, err)
	}
	return out
}

func TestNativePromptsArePagedRenderedAndAnnounced(t *testing.T) {
	lib := &library{}
	for i := range 150 {
		lib.prompts = append(lib.prompts, protov1.Prompt{Name: fmt.Sprintf("x_mem_p%03d", i), Description: "a prompt",
			Arguments: []protov1.PromptArgument{{Name: "who", Required: true}}})
	}
	f, url := nativeFixture(t, lib)
	c := newHTTPConn(t, url, nil)
	c.initialize()

	type page struct {
		Prompts []struct {
			Name      string
			Arguments []struct {
				Name     string
				Required bool
			}
		}
		NextCursor string
	}
	first := result[page](t, c, `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)
	if len(first.Prompts) != PageSize || first.NextCursor == "" || first.Prompts[0].Name != "x_mem_p000" {
		t.Fatalf("first page: %d prompts, cursor %q", len(first.Prompts), first.NextCursor)
	}
	if a := first.Prompts[0].Arguments; len(a) != 1 || a[0].Name != "who" || !a[0].Required {
		t.Errorf("arguments = %+v", a)
	}
	second := result[page](t, c, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{"cursor":%q}}`, first.NextCursor))
	if len(second.Prompts) != 50 || second.NextCursor != "" || second.Prompts[49].Name != "x_mem_p149" {
		t.Fatalf("second page: %d prompts, cursor %q", len(second.Prompts), second.NextCursor)
	}

	got := result[json.RawMessage](t, c, `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"x_mem_p007","arguments":{"who":"Ada"}}}`)
	sameJSON(t, got, []byte(`{"description":"greeting","messages":[
		{"role":"user","content":{"type":"text","text":"Greet Ada"}},
		{"role":"assistant","content":{"type":"resource","resource":{"uri":"mem://a","blob":"AAE="}}}]}`))
	if _, msgs := c.post(`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"x_mem_p007"}}`); msgs[0].Error == nil ||
		!strings.Contains(msgs[0].Error.Message, "argument who is required") || msgs[0].Error.Code != codeInvalidParams {
		t.Errorf("prompts/get without its argument: %+v, want -32602 (invalid params) naming it", msgs[0].Error)
	}
	if _, msgs := c.post(`{"jsonrpc":"2.0","id":5,"method":"prompts/get","params":{"name":"x_mem_nope"}}`); msgs[0].Error == nil || !strings.Contains(msgs[0].Error.Message, "x_mem_nope") {
		t.Errorf("prompts/get of an unknown prompt: %+v", msgs[0])
	}

	resp := c.do(c.request(http.MethodGet, ""))
	t.Cleanup(func() { resp.Body.Close() })
	events := newEventReader(resp.Body)
	f.srv.PromptsChanged() // nothing changed: no notification
	lib.mu.Lock()
	lib.prompts = append(lib.prompts[1:], protov1.Prompt{Name: "x_mem_new", Description: "new"})
	lib.mu.Unlock()
	f.srv.PromptsChanged() // one added, one gone
	f.srv.NotifyLog("warning", "end")
	var methods []string
	for {
		data, err := events.next()
		if err != nil {
			t.Fatalf("listening stream: %v (after %v)", err, methods)
		}
		m := decodeMessage(t, data)
		if m.Method == "notifications/message" {
			break
		}
		methods = append(methods, m.Method)
	}
	if len(methods) == 0 || methods[0] != "notifications/prompts/list_changed" {
		t.Errorf("notifications = %v, want prompts/list_changed", methods)
	}
	names := map[string]bool{}
	for cursor := ""; ; {
		body := `{"jsonrpc":"2.0","id":6,"method":"prompts/list"}`
		if cursor != "" {
			body = fmt.Sprintf(`{"jsonrpc":"2.0","id":6,"method":"prompts/list","params":{"cursor":%q}}`, cursor)
		}
		p := result[page](t, c, body)
		for _, pr := range p.Prompts {
			names[pr.Name] = true
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(names) != 150 || !names["x_mem_new"] || names["x_mem_p000"] {
		t.Errorf("after the change: %d prompts, new %v, removed still there %v", len(names), names["x_mem_new"], names["x_mem_p000"])
	}
}

func TestNativeResourcesAreListedReadAndSubscribedOnce(t *testing.T) {
	lib := &library{
		resources: []protov1.Resource{{URI: "mem://a", Name: "a", Size: -1}, {URI: catalogURI, Name: "shadow", Size: -1}},
		templates: []protov1.ResourceTemplate{{URITemplate: "mem://t/{id}", Name: "t"}, {URITemplate: "mem://bad/{", Name: "bad"}},
	}
	f, url := nativeFixture(t, lib)
	a := newHTTPConn(t, url, nil)
	a.initialize()
	b := newHTTPConn(t, url, nil)
	b.initialize()

	list := result[struct{ Resources []struct{ URI, Name string } }](t, a, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI+"="+r.Name)
	}
	if want := []string{"mem://a=a", catalogURI + "=catalog"}; !reflect.DeepEqual(uris, want) {
		t.Errorf("resources/list = %v, want %v (the gateway's own catalog wins)", uris, want)
	}
	templates := result[struct {
		ResourceTemplates []struct{ URITemplate string }
	}](t, a, `{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}`)
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "mem://t/{id}" {
		t.Errorf("resources/templates/list = %+v, want only the valid template", templates)
	}
	read := result[json.RawMessage](t, a, `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"mem://t/9"}}`)
	sameJSON(t, read, []byte(`{"contents":[{"uri":"mem://t/9","mimeType":"text/plain","text":"contents of mem://t/9"}]}`))
	// What the plugin says of a URI its template matches keeps its meaning:
	// no such resource, a bad URI, or the plugin's own failure.
	for uri, code := range map[string]int{"mem://t/missing": -32002, "mem://t/bad": -32602, "mem://t/broken": -32603} {
		_, msgs := a.post(`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"` + uri + `"}}`)
		if len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != code {
			t.Errorf("resources/read %s = %+v, want error code %d", uri, msgs, code)
		}
	}

	for _, c := range []*httpConn{a, b} {
		result[json.RawMessage](t, c, `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"mem://t/9"}}`)
	}
	result[json.RawMessage](t, a, `{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"mem://t/9"}}`)
	if _, msgs := a.post(`{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"elsewhere://x"}}`); msgs[0].Error == nil {
		t.Errorf("subscribing to a URI no source routes succeeded")
	}
	result[json.RawMessage](t, a, `{"jsonrpc":"2.0","id":7,"method":"resources/unsubscribe","params":{"uri":"mem://t/9"}}`)
	if got, want := lib.recorded(), []string{"subscribe mem://t/9"}; !reflect.DeepEqual(got, want) {
		t.Errorf("source calls while b still watches = %v, want %v", got, want)
	}

	resp := b.do(b.request(http.MethodGet, ""))
	t.Cleanup(func() { resp.Body.Close() })
	f.srv.ResourceUpdated("mem://t/9")
	data, err := newEventReader(resp.Body).next()
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, data, []byte(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"mem://t/9"}}`))

	// The last watcher's session ends: the source hears it.
	if r := b.do(b.request(http.MethodDelete, "")); r.StatusCode != http.StatusOK && r.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE session: %d", r.StatusCode)
	}
	deadline := time.Now().Add(5 * time.Second)
	for want := []string{"subscribe mem://t/9", "unsubscribe mem://t/9"}; !reflect.DeepEqual(lib.recorded(), want); {
		if time.Now().After(deadline) {
			t.Fatalf("source calls = %v, want %v", lib.recorded(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNativeCompletions(t *testing.T) {
	_, url := nativeFixture(t, &library{})
	c := newHTTPConn(t, url, nil)
	c.initialize()
	got := result[struct {
		Completion struct {
			Values  []string
			Total   int
			HasMore bool
		}
	}](t, c, `{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x_mem_p"},"argument":{"name":"who","value":"A"}}}`)
	if v := got.Completion.Values; len(v) != 100 || v[0] != "Awho-0" || !got.Completion.HasMore || got.Completion.Total != 150 {
		t.Errorf("completion = %d values from %q, hasMore %v, total %d; want the first 100 of 150", len(v), v[0], got.Completion.HasMore, got.Completion.Total)
	}
	if _, msgs := c.post(`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"mem://t/{id}"},"argument":{"name":"","value":"1"}}}`); msgs[0].Error == nil || !strings.Contains(msgs[0].Error.Message, "argument.name") {
		t.Errorf("completion without an argument name: %+v", msgs[0])
	}

	// Without a completer the capability is not declared.
	plain := newHTTPConn(t, startHTTP(t, newFixture(t, nil)).URL+"/mcp", nil)
	plain.initialize()
	if _, msgs := plain.post(`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}}}`); msgs[0].Error == nil || msgs[0].Error.Code != -32601 {
		t.Errorf("completion/complete without a completer: %+v, want -32601", msgs[0])
	}
}
