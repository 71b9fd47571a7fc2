package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/core/search"
	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
	"github.com/toolgate/toolgate/sdk/schema"
)

var mcpName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestExternalName(t *testing.T) {
	long := strings.Repeat("a", 80)
	tests := []struct{ plugin, name, want string }{
		{"everything", "echo", "x_everything_echo"},
		{"everything", "get-tiny-image", "x_everything_get-tiny-image"},
		{"k8s", "listPods", "x_k8s_listPods"},
		{"fs", "read.file", "x_fs_read_file_" + hash8("read.file")},
		{"fs", "read_file", "x_fs_read_file"},
		{"fs", "löschen", "x_fs_l_schen_" + hash8("löschen")},
		{"p", long, "x_p_" + long[:64-4-9] + "_" + hash8(long)},
	}
	for _, tt := range tests {
		got := ExternalName(tt.plugin, tt.name)
		if got != tt.want {
			t.Errorf("ExternalName(%q, %q) = %q, want %q", tt.plugin, tt.name, got, tt.want)
		}
		if !mcpName.MatchString(got) {
			t.Errorf("%q breaks MCP's name rule", got)
		}
	}
}

func hash8(s string) string { return shortHash(s) }

func FuzzExternalName(f *testing.F) {
	for _, s := range []string{"echo", "a.b", "", "ünïcode", strings.Repeat("z", 100), "x y"} {
		f.Add("plugin", s)
	}
	f.Fuzz(func(t *testing.T, plugin, name string) {
		if !regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,20}$`).MatchString(plugin) {
			return
		}
		got := ExternalName(plugin, name)
		if !mcpName.MatchString(got) {
			t.Fatalf("ExternalName(%q, %q) = %q breaks MCP's name rule", plugin, name, got)
		}
		if got != ExternalName(plugin, name) {
			t.Fatal("not deterministic")
		}
		if !strings.HasPrefix(got, "x_"+plugin+"_") && len("x_"+plugin+"_") < 55 {
			t.Fatalf("%q lost its plugin prefix", got)
		}
	})
}

func tool(name, desc string) protov1.Tool {
	return protov1.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file to read"}},"required":["path"]}`)}
}

func TestSetReportsChangesAndCollisions(t *testing.T) {
	c := New()
	var seen []Change
	c.OnChange(func(ch Change) { seen = append(seen, ch) })
	c.SetLabels("fs", map[string]string{"category": "files"})

	ch := c.Set("fs", &Manifest{Tools: []protov1.Tool{tool("read", "Read a file."), tool("write", "Write a file.")}})
	if strings.Join(ch.Added, ",") != "x_fs_read,x_fs_write" || len(ch.Removed) != 0 {
		t.Fatalf("first set: %+v", ch)
	}
	ch = c.Set("fs", &Manifest{Tools: []protov1.Tool{tool("read", "Read a file."), tool("list", "List a directory.")}})
	if strings.Join(ch.Added, ",") != "x_fs_list" || strings.Join(ch.Removed, ",") != "x_fs_write" {
		t.Fatalf("second set: %+v", ch)
	}
	if c.ToolCount("fs") != 2 || len(seen) != 2 {
		t.Fatalf("count=%d changes=%d", c.ToolCount("fs"), len(seen))
	}
	// Unchanged manifest: no notice.
	c.Set("fs", &Manifest{Tools: []protov1.Tool{tool("read", "Read a file."), tool("list", "List a directory.")}})
	if len(seen) != 2 {
		t.Errorf("an unchanged manifest was announced")
	}

	ch = c.Set("odd", &Manifest{Tools: []protov1.Tool{tool("a_b", ""), tool("a_b", "again")}})
	if len(ch.Collisions) != 1 || !strings.Contains(ch.Collisions[0], `"a_b"`) || c.ToolCount("odd") != 1 {
		t.Fatalf("collision not reported: %+v", ch)
	}

	res, err := c.Index().Search(search.Query{Labels: map[string]string{"category": "files"}})
	if err != nil || res.Total != 2 {
		t.Fatalf("plugin labels not searchable: %+v %v", res, err)
	}
	// The operator's label wins over the plugin's own; the plugin's other labels stay.
	labelled := tool("stat", "Stat a file.")
	labelled.Labels = map[string]string{"category": "filesystem", "access": "read"}
	c.Set("fs", &Manifest{Tools: []protov1.Tool{labelled}})
	for _, q := range []map[string]string{{"category": "files"}, {"access": "read"}} {
		if res, err := c.Index().Search(search.Query{Labels: q}); err != nil || res.Total != 1 {
			t.Errorf("search by %v: %+v %v, want x_fs_stat", q, res, err)
		}
	}
	if res, err := c.Index().Search(search.Query{Labels: map[string]string{"category": "filesystem"}}); err != nil || res.Total != 0 {
		t.Errorf("the plugin's label won over the operator's: %+v %v", res, err)
	}
	c.Set("fs", nil)
	if _, ok := c.Tool("x_fs_read"); ok || c.Index().Len() != 1 {
		t.Errorf("removed plugin still present (index has %d)", c.Index().Len())
	}
}

func TestRouteResource(t *testing.T) {
	c := New()
	c.Set("a", &Manifest{
		Resources: []protov1.Resource{{URI: "file:///etc/hosts"}},
		Templates: []protov1.ResourceTemplate{{URITemplate: "demo://resource/{id}"}, {URITemplate: "demo://{x}"}},
	})
	c.Set("b", &Manifest{
		Resources: []protov1.Resource{{URI: "file:///etc/hosts"}},
		Templates: []protov1.ResourceTemplate{{URITemplate: "demo://resource/dynamic/{id}"}},
	})
	for uri, want := range map[string]string{
		"file:///etc/hosts":            "a",
		"demo://resource/7":            "a",
		"demo://resource/dynamic/blob": "b",
		"demo://other":                 "a",
	} {
		got, _, ok := c.RouteResource(uri)
		if !ok || got != want {
			t.Errorf("RouteResource(%s) = %q %v, want %q", uri, got, ok, want)
		}
	}
	if _, _, ok := c.RouteResource("nope://x"); ok {
		t.Error("unknown URI routed")
	}
}

func TestValidateArguments(t *testing.T) {
	closed := protov1.Tool{Name: "closed", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`)}
	draft7 := protov1.Tool{Name: "d7", InputSchema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`)}
	tests := []struct {
		def  protov1.Tool
		args string
		want []string // substrings; nil = valid
	}{
		{tool("read", ""), `{"path":"/tmp"}`, nil},
		{tool("read", ""), ``, []string{"at /: missing property 'path'"}},
		{tool("read", ""), `{"path":3}`, []string{"at /path: got number, want string"}},
		{tool("read", ""), `[1]`, []string{"at /: got array, want object"}},
		{tool("read", ""), `{"path":`, []string{"not valid JSON"}},
		{draft7, `{"n":0}`, []string{"at /n: minimum: got 0, want 1"}},
		{draft7, `{"n":2}`, nil},
		{closed, `{"paht":"/tmp"}`, []string{`at /paht: unknown argument; did you mean "path"?`}},
	}
	for _, tt := range tests {
		c := New()
		c.Set("p", &Manifest{Tools: []protov1.Tool{tt.def}})
		tl, _ := c.Tool(ExternalName("p", tt.def.Name))
		err := tl.ValidateArguments(json.RawMessage(tt.args))
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s %s: %v", tt.def.Name, tt.args, err)
			}
			continue
		}
		var ae *ArgumentError
		if !errors.As(err, &ae) {
			t.Errorf("%s %s: err = %v, want ArgumentError", tt.def.Name, tt.args, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s: %q lacks %q", tt.def.Name, tt.args, err, w)
			}
		}
	}
	c := New()
	c.Set("p", &Manifest{Tools: []protov1.Tool{{Name: "broken", InputSchema: json.RawMessage(`{"type":"bogus"}`)}}})
	tl, _ := c.Tool("x_p_broken")
	if err := tl.ValidateArguments(nil); err == nil || !strings.Contains(err.Error(), "does not compile") {
		t.Errorf("broken schema: %v", err)
	}
}

// A tool's schema may only refer within itself: the gateway must not read a
// file (or fetch a URL) because a plugin's schema names it.
func TestValidateArgumentsRefusesExternalReferences(t *testing.T) {
	file := filepath.Join(t.TempDir(), "defs.json")
	if err := os.WriteFile(file, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := New()
	c.Set("p", &Manifest{Tools: []protov1.Tool{{Name: "ref", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"a":{"$ref":"file://` + file + `"}}}`)}}})
	tl, _ := c.Tool("x_p_ref")
	err := tl.ValidateArguments(json.RawMessage(`{"a":"x"}`))
	if !errors.Is(err, schema.ErrExternalRef) {
		t.Fatalf("err = %v, want schema.ErrExternalRef", err)
	}
	if !strings.Contains(err.Error(), "x_p_ref") || !strings.Contains(err.Error(), "file://"+file) {
		t.Errorf("error does not name the tool and the reference: %v", err)
	}
}

func TestManifestStore(t *testing.T) {
	s := ManifestStore{Dir: t.TempDir()}
	key := ManifestKey("p", []byte(`{"a":1}`), "/bin/sh")
	if key == ManifestKey("p", []byte(`{"a":2}`), "/bin/sh") || key == ManifestKey("p", []byte(`{"a":1}`), "/bin/ls") {
		t.Fatal("key ignores config or binary")
	}
	if m, err := s.Load(key); m != nil || err != nil {
		t.Fatalf("empty store: %v %v", m, err)
	}
	want := &Manifest{Info: protov1.Info{Name: "p"}, Tools: []protov1.Tool{tool("read", "Read.")}}
	if err := s.Save(key, want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(key)
	if err != nil || got.Info.Name != "p" || len(got.Tools) != 1 || got.Tools[0].Name != "read" {
		t.Fatalf("round trip: %+v %v", got, err)
	}
}

// plugintest refuses what the gateway refuses, in the same words: a plugin's
// tests see exactly the answer its users will.
func TestPlugintestRefusesAsTheGatewayDoes(t *testing.T) {
	type args struct {
		Name string `json:"name"`
	}
	p := &plugin.Plugin{Name: "hello", Tools: []plugin.Tool{
		plugin.NewTool("greet", "Greet.", func(context.Context, *plugin.Call, args) (*plugin.Result, error) {
			return plugin.Text("hi"), nil
		}),
	}}
	c := New()
	c.Set("hello", &Manifest{Tools: []protov1.Tool{p.Tools[0].Def}})
	tl, _ := c.Tool("x_hello_greet")
	b := plugintest.ServePlugin(t, p)
	for _, in := range []string{`{}`, `{"name":1}`, `{"name":"a","nme":"b"}`} {
		gw := tl.ValidateArguments(json.RawMessage(in))
		var ae *ArgumentError
		if !errors.As(gw, &ae) {
			t.Fatalf("%s: gateway err = %v, want ArgumentError", in, gw)
		}
		res, err := b.CallTool(context.Background(), &protov1.CallRequest{Name: "greet", Arguments: json.RawMessage(in)}, &plugintest.Events{})
		if err != nil || !res.IsError {
			t.Fatalf("%s: plugintest answered %+v, %v; want an error result", in, res, err)
		}
		want := strings.Join(ae.Problems, "; ")
		if got := res.Content[0].Text; got != "invalid arguments for greet: "+want {
			t.Errorf("%s: plugintest says %q, the gateway %q", in, got, want)
		}
	}
}

func TestPluginOf(t *testing.T) {
	for name, want := range map[string]string{"x_hello_greet": "hello", "x_my-prom_query_range": "my-prom", "x_k8s_": "k8s", "core_plugin_list": "", "x_": "", "x_nounderscore": ""} {
		got, ok := PluginOf(name)
		if got != want || ok != (want != "") {
			t.Errorf("PluginOf(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

// A plugin's tools are searchable the moment the catalog counts them, so
// a filter_tools right after a plugin starts never misses them.
func TestToolsAreSearchableOnceCounted(t *testing.T) {
	tools := make([]protov1.Tool, 500)
	for i := range tools {
		tools[i] = tool(fmt.Sprintf("read_%d", i), "Read a file from disk.")
	}
	for range 20 {
		c := New()
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.Set("fs", &Manifest{Tools: tools})
		}()
		for c.ToolCount("fs") == 0 {
			runtime.Gosched()
		}
		res, err := c.Index().Search(search.Query{Text: "read a file"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Fatal("the catalog counts the plugin's tools, but search finds none of them")
		}
		<-done
	}
}

// Two plugins whose names are too long for the x_<plugin>_ prefix end up
// with the same exposed name: the second is reported and not registered,
// so calls keep going to the tool that had the name first.
func TestSetReportsCollisionsBetweenPlugins(t *testing.T) {
	c := New()
	long := strings.Repeat("p", 70)
	if c.Set(long+"1", &Manifest{Tools: []protov1.Tool{tool("echo", "first")}}).Collisions != nil {
		t.Fatal("the first plugin collided with nothing")
	}
	ch := c.Set(long+"2", &Manifest{Tools: []protov1.Tool{tool("echo", "second")}})
	if len(ch.Collisions) != 1 || !strings.Contains(ch.Collisions[0], `plugin "`+long+`1"`) || len(ch.Added) != 0 {
		t.Fatalf("collision between plugins not reported: %+v", ch)
	}
	if got := c.Collisions(long + "2"); len(got) != 1 || got[0] != ch.Collisions[0] || c.Collisions(long+"1") != nil {
		t.Errorf("Collisions = %q and %q, want the second plugin's collision only", got, c.Collisions(long+"1"))
	}
	id := ExternalName(long+"1", "echo")
	if got, ok := c.Tool(id); !ok || got.Plugin != long+"1" {
		t.Errorf("%s routes to %+v, want the first plugin's tool", id, got)
	}
	if c.ToolCount(long+"2") != 0 || len(c.Tools("")) != 1 {
		t.Errorf("the colliding tool was listed: %d tools", len(c.Tools("")))
	}
}

// A URI template two plugins both serve is reported, not split between them
// by chance; templates whose literal prefixes are as long go to one plugin,
// the same every time.
func TestTemplatesOfTwoPlugins(t *testing.T) {
	for i := 0; i < 20; i++ {
		c := New()
		c.Set("b", &Manifest{Templates: []protov1.ResourceTemplate{{URITemplate: "demo://item/{id}"}}})
		ch := c.Set("a", &Manifest{Templates: []protov1.ResourceTemplate{{URITemplate: "demo://item/{id}"}, {URITemplate: "demo://item/{kind}/{id}"}}})
		if len(ch.Collisions) != 1 || !strings.Contains(ch.Collisions[0], `demo://item/{id} of plugin "a" is already served by plugin "b"`) {
			t.Fatalf("shared template not reported: %+v", ch)
		}
		if _, ts := c.Resources(""); len(ts) != 2 {
			t.Fatalf("templates: %+v, want b's demo://item/{id} and a's demo://item/{kind}/{id}", ts)
		}
		if got, _, _ := c.RouteResource("demo://item/7"); got != "a" {
			t.Fatalf("demo://item/7 routed to %q, want a (same prefix, first by name)", got)
		}
	}
}
