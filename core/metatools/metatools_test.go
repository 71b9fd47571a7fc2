package metatools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"go.uber.org/goleak"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/protov1"
)

var helloPlugin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "metatools-test")
	if err != nil {
		panic(err)
	}
	helloPlugin = filepath.Join(dir, "hello-plugin")
	if out, err := exec.Command("go", "build", "-o", helloPlugin, "../../plugins/examples/hello").CombinedOutput(); err != nil {
		panic("build hello plugin: " + err.Error() + "\n" + string(out))
	}
	goleak.VerifyTestMain(m)
	os.RemoveAll(dir)
}

// gateway runs the meta-tools over a real manager with the hello plugin.
func gateway(t *testing.T) map[string]Tool {
	t.Helper()
	return toolsByName(helloHandlers(t))
}

// helloHandlers are the meta-tools' handlers over a real manager with the
// hello plugin running.
func helloHandlers(t *testing.T) *Handlers {
	t.Helper()
	cat := catalog.New()
	cat.SetLabels("hello", map[string]string{"category": "demo"})
	mgr := runPlugins(t, cat, supervisor.Policy{}, []supervisor.Spec{{Name: "hello", Path: helloPlugin, AutoStart: true}}, "hello")
	h := New(cat, mgr, func(string) time.Duration { return 5 * time.Second }, hclog.NewNullLogger())
	h.MaxCallTimeout = time.Minute
	return h
}

// runPlugins runs specs under a manager that fills cat until the test ends,
// and waits until each plugin named in ready has listed its tools.
func runPlugins(t *testing.T, cat *catalog.Catalog, policy supervisor.Policy, specs []supervisor.Spec, ready ...string) *supervisor.Manager {
	t.Helper()
	mgr := supervisor.NewManager(specs, supervisor.ManagerOptions{Catalog: cat, Logger: hclog.NewNullLogger(), Policy: policy})
	ctx, cancel := context.WithCancel(context.Background())
	mgr.Run(ctx)
	t.Cleanup(func() { cancel(); mgr.Wait() })
	deadline := time.Now().Add(15 * time.Second)
	for _, name := range ready {
		for cat.ToolCount(name) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("plugin %s did not start", name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return mgr
}

// buildTestPlugin builds the SDK's test plugin, which misbehaves on request
// and asks its client, and returns the binary's path.
func buildTestPlugin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "testplugin")
	build := exec.Command("go", "build", "-o", bin, "./plugintest/testplugin")
	build.Dir = "../../sdk" // its own module
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build test plugin: %v\n%s", err, out)
	}
	return bin
}

// toolsByName is h's meta-tools keyed by name.
func toolsByName(h *Handlers) map[string]Tool {
	tools := map[string]Tool{}
	for _, tl := range h.Tools() {
		tools[tl.Name] = tl
	}
	return tools
}

func invoke(t *testing.T, tools map[string]Tool, name, args string) (*protov1.Result, map[string]any) {
	t.Helper()
	res, err := tools[name].Handle(context.Background(), json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	var out map[string]any
	if len(res.StructuredContent) > 0 {
		_ = json.Unmarshal(res.StructuredContent, &out)
	}
	return res, out
}

func text(r *protov1.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func TestToolsAreTheElevenMetaTools(t *testing.T) {
	h := New(catalog.New(), supervisor.NewManager(nil, supervisor.ManagerOptions{Catalog: catalog.New(), Logger: hclog.NewNullLogger()}), nil, hclog.NewNullLogger())
	var names []string
	for _, tl := range h.Tools() {
		names = append(names, tl.Name)
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil {
			t.Errorf("%s: schema is not JSON: %v", tl.Name, err)
		}
	}
	want := "list_tools filter_tools describe_tool call_tool list_core_tools list_resources describe_resource get_resource list_prompts describe_prompt get_prompt"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("tools = %s", got)
	}
}

// timeoutRange is how call_tool states the timeout_seconds it accepts with
// the gateway's max_call_timeout at one minute.
const timeoutRange = `call_tool: argument "timeout_seconds": must be from 0.001 to 60 seconds (the gateway's max_call_timeout is 1m0s); `

func TestArgumentErrorsNameTheArgument(t *testing.T) {
	tools := gateway(t)
	tests := []struct{ tool, args, want string }{
		{"list_tools", `{"limit":0}`, `list_tools: argument "limit": must be at least 1`},
		{"list_tools", `{"limit":-3}`, `argument "limit": must be at least 1`},
		{"list_tools", `{"offset":-1}`, `argument "offset": must not be negative`},
		{"list_tools", `{"limt":3}`, `argument "limt": unknown argument; it takes limit, offset, plugin`},
		{"list_tools", `{"plugin":"nope"}`, `no plugin named "nope"; plugins: hello`},
		{"filter_tools", `{"limit":"five"}`, `argument "limit": expected an integer, got a string`},
		{"list_tools", `{"limit":1.5}`, `list_tools: argument "limit": expected an integer, got 1.5`},
		{"list_tools", `{"offset":100000000000000000000}`, `argument "offset": 100000000000000000000 is out of range`},
		{"list_tools", `{"plugin":true}`, `argument "plugin": expected a string, got a boolean`},
		{"call_tool", `{"name":["x"]}`, `argument "name": expected a string, got an array`},
		// A label's value of the wrong type: the key at fault is named,
		// the first of two.
		{"filter_tools", `{"labels":{"tier":5}}`, `filter_tools: argument "labels.tier": expected a string, got a number`},
		{"filter_tools", `{"labels":{"team":"a","tier":["x"],"zone":1}}`, `argument "labels.tier": expected a string, got an array`},
		{"filter_tools", `{"labels":["tier"]}`, `argument "labels": expected an object, got an array`},
		{"filter_tools", `{"pattern":"[x"}`, `argument "pattern": bad tool name pattern "[x"`},
		{"filter_tools", `[1,2]`, `arguments must be a JSON object`},
		{"describe_tool", `{}`, `argument "name": is required`},
		{"call_tool", `{"arguments":{}}`, `argument "name": is required`},
		{"call_tool", `{"name":"x_hello_echo","arguments":"hi"}`, `argument "arguments": must be an object`},
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"},"timeout_seconds":-1}`, timeoutRange + "got -1"},
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"},"timeout_seconds":0}`, timeoutRange + "got 0"},
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"},"timeout_seconds":1e-12}`, timeoutRange + "got 1e-12"},
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"},"timeout_seconds":60.5}`, timeoutRange + "got 60.5"},
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"},"timeout_seconds":1e300}`, timeoutRange + "got 1e+300"},
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"},"timeout_seconds":-1e300}`, timeoutRange + "got -1e+300"},
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"},"timeout_seconds":1e400}`, `argument "timeout_seconds": 1e400 is out of range`},
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"},"timeout_seconds":"5"}`, `argument "timeout_seconds": expected a number, got a string`},
		{"call_tool", `{"name":"core_plugin_get","arguments":{"name":"zz"}}`, `no plugin named "zz"`},
		// Ranking a huge query would hold the call for minutes.
		{"filter_tools", `{"query":"` + strings.Repeat("é", 1001) + `"}`, `argument "query": is 1001 characters long; at most 1000`},
	}
	for _, tt := range tests {
		res, _ := invoke(t, tools, tt.tool, tt.args)
		if !res.IsError || !strings.Contains(text(res), tt.want) {
			t.Errorf("%s %s: got %q (isError=%v), want %q", tt.tool, tt.args, text(res), res.IsError, tt.want)
		}
	}
}

func TestListAndFilterTools(t *testing.T) {
	tools := gateway(t)
	_, out := invoke(t, tools, "list_tools", `{"limit":2,"offset":1}`)
	if out["total"].(float64) != 4 || len(out["tools"].([]any)) != 2 || out["truncated"] != true {
		t.Errorf("list_tools page: %v", out)
	}
	pl := out["plugins"].([]any)[0].(map[string]any)
	if pl["name"] != "hello" || pl["state"] != "running" || pl["tools"].(float64) != 4 {
		t.Errorf("plugin line: %v", pl)
	}
	// Past the end, every list says the offset asked for, as filter_tools
	// does, and why the page is empty.
	for tool, items := range map[string]string{"list_tools": "tools", "filter_tools": "tools", "list_prompts": "prompts", "list_resources": "resources"} {
		_, out = invoke(t, tools, tool, `{"offset":99}`)
		total := out["total"].(float64)
		if out["offset"] != float64(99) || len(out[items].([]any)) != 0 || out["truncated"] != false ||
			out["note"] != fmt.Sprintf("offset 99 is past the end: there are %d; offset 0 starts from the first", int(total)) {
			t.Errorf("%s offset past the end: %v", tool, out)
		}
	}
	_, out = invoke(t, tools, "list_tools", `{"offset":3}`)
	if out["offset"] != float64(3) || len(out["tools"].([]any)) != 1 || out["note"] != nil {
		t.Errorf("list_tools last page: %v", out)
	}

	_, out = invoke(t, tools, "filter_tools", `{"query":"say hi to someone","include_schema":true}`)
	first := out["tools"].([]any)[0].(map[string]any)
	if first["name"] != "x_hello_greet" || first["input_schema"] == nil || first["score"] == nil || first["state"] != "running" {
		t.Errorf("filter_tools query: %v", out)
	}
	for args, want := range map[string]float64{
		`{"pattern":"x_hello_*t"}`:                                2,
		`{"pattern":"*count"}`:                                    1,
		`{"description_filter":"PROGRESS"}`:                       1,
		`{"description_filter":"PROGRESS","case_sensitive":true}`: 0,
		`{"labels":{"category":"demo"}}`:                          4,
		`{"labels":{"category":"demo","idempotent":"true"}}`:      1,
		`{"labels":{"category":"other"}}`:                         0,
		`{"plugin":"hello","limit":2}`:                            4,
	} {
		_, out := invoke(t, tools, "filter_tools", args)
		if out["total"].(float64) != want {
			t.Errorf("filter_tools %s: total %v, want %v", args, out["total"], want)
		}
	}
}

func TestDescribeAndCall(t *testing.T) {
	tools := gateway(t)
	_, out := invoke(t, tools, "describe_tool", `{"name":"x_hello_greet"}`)
	ex := out["example"].(map[string]any)["arguments"].(map[string]any)
	if ex["name"] != "x_hello_greet" || ex["arguments"].(map[string]any)["name"] != "<name>" {
		t.Errorf("example: %v", out["example"])
	}
	if out["annotations"].(map[string]any)["read_only"] != true || out["plugin_state"].(map[string]any)["state"] != "running" {
		t.Errorf("describe: %v", out)
	}
	// The labels shown are those filter_tools matches: the operator's
	// category and the ones the annotations give.
	labels, _ := json.Marshal(out["labels"])
	if string(labels) != `{"category":"demo","read_only":"true"}` {
		t.Errorf("describe_tool labels = %s, want the category and read_only from the annotations", labels)
	}
	if _, found := invoke(t, tools, "filter_tools", `{"pattern":"x_hello_greet","labels":`+string(labels)+`}`); found["total"] != float64(1) {
		t.Errorf("filter_tools by the labels describe_tool shows: %v", found)
	}
	// The example is itself a valid call.
	b, _ := json.Marshal(ex)
	if res, _ := invoke(t, tools, "call_tool", string(b)); res.IsError {
		t.Errorf("example call failed: %s", text(res))
	}

	res, _ := invoke(t, tools, "call_tool", `{"name":"x_hello_greet","arguments":{"name":"Ada","language":"fr"}}`)
	if res.IsError || text(res) != "Bonjour, Ada!" || string(res.StructuredContent) != `{"greeting":"Bonjour, Ada!"}` {
		t.Errorf("call: %+v", res)
	}
	res, _ = invoke(t, tools, "call_tool", `{"name":"x_hello_greet","arguments":{"name":"Ada","language":"es"}}`)
	if !res.IsError || !strings.Contains(text(res), "at /language: value must be one of") || !strings.Contains(text(res), `"enum":["en","fr","de"]`) {
		t.Errorf("bad enum: %s", text(res))
	}
	res, _ = invoke(t, tools, "call_tool", `{"name":"x_hello_gret","arguments":{}}`)
	if !res.IsError || !strings.Contains(text(res), `did you mean "x_hello_greet"`) {
		t.Errorf("unknown tool: %s", text(res))
	}
	res, _ = invoke(t, tools, "call_tool", `{"name":"x_hello_count","arguments":{"to":100,"delay_ms":100},"timeout_seconds":0.2}`)
	if !res.IsError || !strings.Contains(text(res), "timed out after 200ms") {
		t.Errorf("timeout: %s", text(res))
	}
	res, _ = invoke(t, tools, "call_tool", `{"name":"x_hello_pixel"}`)
	if res.IsError || res.Content[0].Kind != protov1.KindImage || len(res.Content[0].Data) == 0 {
		t.Errorf("image: %+v", res)
	}
}

func TestCoreTools(t *testing.T) {
	tools := gateway(t)
	_, out := invoke(t, tools, "list_core_tools", `{}`)
	if out["total"].(float64) != 6 {
		t.Errorf("core tools: %v", out)
	}
	_, out = invoke(t, tools, "call_tool", `{"name":"core_plugin_get","arguments":{"name":"hello"}}`)
	if out["state"] != "running" || out["pid"] == nil || out["tools"].(float64) != 4 {
		t.Errorf("core_plugin_get: %v", out)
	}
	_, out = invoke(t, tools, "call_tool", `{"name":"core_plugin_stop","arguments":{"name":"hello"}}`)
	if out["state"] != "stopped" {
		t.Errorf("core_plugin_stop: %v", out)
	}
	res, _ := invoke(t, tools, "call_tool", `{"name":"x_hello_echo","arguments":{"text":"a"}}`)
	if !res.IsError || !strings.Contains(text(res), `plugin "hello" is stopped`) {
		t.Errorf("call to stopped plugin: %s", text(res))
	}
	_, out = invoke(t, tools, "call_tool", `{"name":"core_plugin_restart","arguments":{"name":"hello"}}`)
	if out["state"] != "running" {
		t.Errorf("core_plugin_restart: %v", out)
	}
	_, out = invoke(t, tools, "call_tool", `{"name":"core_events","arguments":{"plugin":"hello"}}`)
	var tos []string
	for _, e := range out["events"].([]any) {
		tos = append(tos, e.(map[string]any)["to"].(string))
	}
	if got := strings.Join(tos, ","); got != "starting,running,stopping,stopped,starting,running" {
		t.Errorf("events: %s", got)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	tools := gateway(t)
	_, out := invoke(t, tools, "list_resources", `{}`)
	if out["total"].(float64) != 1 {
		t.Errorf("list_resources: %v", out)
	}
	res, _ := invoke(t, tools, "get_resource", `{"uri":"hello://readme"}`)
	if res.IsError || res.Content[0].Kind != protov1.KindResource || !strings.Contains(res.Content[0].Resource.Text, "greets") {
		t.Errorf("get_resource: %+v", res)
	}
	res, _ = invoke(t, tools, "get_resource", `{"uri":"nope://x"}`)
	if !res.IsError || !strings.Contains(text(res), "no plugin serves") {
		t.Errorf("unknown resource: %s", text(res))
	}
	// A template's URI reaches its plugin, whose "not found" says why.
	res, _ = invoke(t, tools, "get_resource", `{"uri":"hello://greeting/fr"}`)
	if res.IsError || len(res.Content) != 1 || res.Content[0].Resource.Text != "Bonjour" {
		t.Errorf("get_resource of a template's URI: %+v", res)
	}
	res, _ = invoke(t, tools, "get_resource", `{"uri":"hello://greeting/es"}`)
	if want := `read resource "hello://greeting/es" from plugin "hello": hello has no greeting in "es"; it speaks en, fr and de`; !res.IsError || !strings.HasPrefix(text(res), want) {
		t.Errorf("get_resource of a template's URI the plugin does not have: %s; want %q", text(res), want)
	}
	huge := strings.Repeat("y", 100_000)
	res, _ = invoke(t, tools, "get_resource", `{"uri":"hello://greeting/`+huge+`"}`)
	if got := text(res); !res.IsError || len(got) > 2000 || !strings.Contains(got, `from plugin "hello": hello has no greeting in "yy`) ||
		!strings.HasSuffix(got, "bytes in all)") {
		t.Errorf("get_resource of a huge URI the plugin does not have: %d bytes: %.300q", len(got), got)
	}
	_, out = invoke(t, tools, "describe_prompt", `{"name":"x_hello_welcome"}`)
	if out["original_name"] != "welcome" {
		t.Errorf("describe_prompt: %v", out)
	}
	res, _ = invoke(t, tools, "get_prompt", `{"name":"x_hello_welcome"}`)
	if !res.IsError || !strings.Contains(text(res), `"arguments.name": is required`) {
		t.Errorf("missing prompt arg: %s", text(res))
	}
	res, _ = invoke(t, tools, "get_prompt", `{"name":"x_hello_welcome","arguments":{"nmae":"Ada"}}`)
	if !res.IsError || !strings.Contains(text(res), `"arguments.nmae": is not an argument of prompt x_hello_welcome; its arguments: name`) {
		t.Errorf("misspelt prompt arg: %s", text(res))
	}
	res, _ = invoke(t, tools, "get_prompt", `{"name":"x_hello_welcome","arguments":{"name":5}}`)
	if want := `get_prompt: argument "arguments.name": expected a string, got a number`; !res.IsError || text(res) != want {
		t.Errorf("prompt arg of the wrong type: %s; want %q", text(res), want)
	}
	for _, tool := range []string{"get_prompt", "describe_prompt"} {
		res, _ = invoke(t, tools, tool, `{}`)
		if want := tool + `: argument "name": is required`; !res.IsError || !strings.HasPrefix(text(res), want) {
			t.Errorf("%s without a name: %s; want %q", tool, text(res), want)
		}
	}
	for _, tool := range []string{"get_resource", "describe_resource"} {
		res, _ = invoke(t, tools, tool, `{"uri":"hello://readne"}`)
		if want := `no plugin serves resource "hello://readne"; did you mean "hello://readme"? list_resources shows the resources and templates there are`; !res.IsError || text(res) != want {
			t.Errorf("%s of a typo: %s; want %q", tool, text(res), want)
		}
	}
	for name, want := range map[string]string{
		"x_hello_welcom": `unknown prompt "x_hello_welcom"; did you mean "x_hello_welcome"? list_prompts shows the prompts there are`,
		"welcome":        `unknown prompt "welcome"; did you mean "x_hello_welcome"? list_prompts shows the prompts there are`,
		"x_nothing_like": `unknown prompt "x_nothing_like"; list_prompts shows the prompts there are`,
	} {
		for _, tool := range []string{"get_prompt", "describe_prompt"} {
			res, _ = invoke(t, tools, tool, `{"name":"`+name+`"}`)
			if !res.IsError || !strings.Contains(text(res), want) {
				t.Errorf("%s of %s: %s; want %q", tool, name, text(res), want)
			}
		}
	}
	res, _ = invoke(t, tools, "get_prompt", `{"name":"x_hello_welcome","arguments":{"name":"Ada"}}`)
	if res.IsError || !strings.Contains(text(res), "welcome Ada") || !strings.Contains(string(res.StructuredContent), `"roles":["user"]`) {
		t.Errorf("get_prompt: %+v", res)
	}
}

func TestSummary(t *testing.T) {
	for in, want := range map[string]string{
		"Echoes back the input string":   "Echoes back the input string",
		"List pods. Supports selectors.": "List pods.",
		"Version 1.2 of it. More.":       "Version 1.2 of it.",
		"First line\nsecond line":        "First line",
		"  ":                             "",
		strings.Repeat("é", 130):         strings.Repeat("é", 119) + "…",
		"Does it work? Yes":              "Does it work?",
		"Label names, e.g. job. More.":   "Label names, e.g. job.",
		"Names (i.e. Keys). Then":        "Names (i.e. Keys).",
		"Lists them, etc. Then more":     "Lists them, etc.",
		"Step in s. defaults to 15":      "Step in s. defaults to 15",
		"Version 2. 3 more":              "Version 2. 3 more",
	} {
		if got := summary(in); got != want {
			t.Errorf("summary(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExample(t *testing.T) {
	schema := `{"type":"object","required":["a","b","c","d","e","f","g"],"properties":{
		"a":{"type":"string"},"b":{"type":"integer"},"c":{"type":["null","boolean"]},
		"d":{"type":"string","enum":["x","y"]},"e":{"type":"array","items":{"type":"number"}},
		"f":{"type":"object","required":["z"],"properties":{"z":{"type":"string","default":"dz"}}},
		"g":{"type":"string","examples":["ex"]},"opt":{"type":"string"}}}`
	got, _ := json.Marshal(Example(json.RawMessage(schema)))
	want := `{"a":"\u003ca\u003e","b":1,"c":true,"d":"x","e":[1],"f":{"z":"dz"},"g":"ex"}`
	if string(got) != want {
		t.Errorf("Example = %s, want %s", got, want)
	}
	if len(Example(json.RawMessage(`not json`))) != 0 {
		t.Error("bad schema gave arguments")
	}
}

func FuzzDecodeArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"query":"x","limit":3}`, `{"labels":{"a":"b"}}`, `{"labels":{"a":"b","c":[1]}}`, `null`, `[]`, `{"limit":1e400}`, `{"offset":-1}`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var in struct {
			Query  string            `json:"query"`
			Labels map[string]string `json:"labels"`
			Limit  *int              `json:"limit"`
			Offset *int              `json:"offset"`
		}
		err := decode("filter_tools", raw, &in)
		if err == nil {
			if _, _, _, err := page("filter_tools", in.Limit, in.Offset, 5, 10); err != nil {
				if _, ok := err.(*ArgumentError); !ok {
					t.Fatalf("page error of wrong type: %v", err)
				}
			}
			return
		}
		if _, ok := err.(*ArgumentError); !ok {
			t.Fatalf("decode error of wrong type %T: %v", err, err)
		}
		if !strings.HasPrefix(err.Error(), "filter_tools: ") {
			t.Fatalf("error does not name the tool: %v", err)
		}
	})
}

// A plugin that failed to configure never listed its tools; a call to one of
// them says so and why, not "unknown tool".
func TestCallToFailedPluginSaysWhy(t *testing.T) {
	cat := catalog.New()
	mgr := runPlugins(t, cat, supervisor.Policy{}, []supervisor.Spec{{Name: "hello", Path: helloPlugin, AutoStart: true, Config: json.RawMessage(`{"greeting":"hi"}`)}})
	sup, _ := mgr.Get("hello")
	deadline := time.Now().Add(10 * time.Second)
	for sup.Status().State != supervisor.Failed {
		if time.Now().After(deadline) {
			t.Fatalf("plugin did not fail on its config; state %s", sup.Status().State)
		}
		time.Sleep(10 * time.Millisecond)
	}
	tools := toolsByName(New(cat, mgr, func(string) time.Duration { return 5 * time.Second }, hclog.NewNullLogger()))
	res, _ := invoke(t, tools, "call_tool", `{"name":"x_hello_greet","arguments":{"name":"Ada"}}`)
	got := text(res)
	for _, want := range []string{`plugin "hello" failed to start`, "greeting", "this plugin takes no configuration", "core_plugin_restart"} {
		if !res.IsError || !strings.Contains(got, want) {
			t.Errorf("answer lacks %q: %s", want, got)
		}
	}
	if strings.Contains(got, "unknown tool") {
		t.Errorf("answer still reads unknown tool: %s", got)
	}

	// A search narrowed to it, or one that finds nothing, says it is down.
	_, out := invoke(t, tools, "filter_tools", `{"query":"greet someone","plugin":"hello"}`)
	note, _ := out["note"].(string)
	for _, want := range []string{`Plugin "hello" has no tools`, "failed", "this plugin takes no configuration", "core_plugin_restart"} {
		if !strings.Contains(note, want) {
			t.Errorf("filter_tools on the failed plugin: note lacks %q: %v", want, out)
		}
	}
	_, out = invoke(t, tools, "filter_tools", `{"query":"greet someone"}`)
	down, _ := out["unavailable"].([]any)
	if len(down) != 1 || down[0].(map[string]any)["name"] != "hello" || !strings.Contains(fmt.Sprint(down[0]), "no configuration") {
		t.Errorf("filter_tools with no match: unavailable %v, want the failed hello plugin and its error; answer %v", down, out)
	}
}

// The first request right after the gateway starts, for a tool, prompt or
// resource of a lazy plugin that has not told what it serves yet, starts it
// and is answered, not told that there is no such thing.
func TestFirstCallWaitsForLazyPlugin(t *testing.T) {
	for _, c := range []struct{ tool, args, want, unknown string }{
		{"call_tool", `{"name":"x_hello_echo","arguments":{"text":"first"}}`, "first", `{"name":"x_hello_nope"}`},
		{"describe_tool", `{"name":"x_hello_echo"}`, "Text to send back", `{"name":"x_hello_nope"}`},
		{"get_prompt", `{"name":"x_hello_welcome","arguments":{"name":"Ada"}}`, "Ada", `{"name":"x_hello_nope"}`},
		{"describe_prompt", `{"name":"x_hello_welcome"}`, "Welcome a new user", `{"name":"x_hello_nope"}`},
		{"get_resource", `{"uri":"hello://readme"}`, "hello://readme", `{"uri":"nope://x"}`},
		{"describe_resource", `{"uri":"hello://readme"}`, "hello://readme", `{"uri":"nope://x"}`},
	} {
		t.Run(c.tool, func(t *testing.T) {
			cat := catalog.New()
			mgr := runPlugins(t, cat, supervisor.Policy{}, []supervisor.Spec{{Name: "hello", Path: helloPlugin}})
			tools := toolsByName(New(cat, mgr, func(string) time.Duration { return 10 * time.Second }, hclog.NewNullLogger()))
			if cat.Known("hello") {
				t.Fatal("the plugin's tools are known before any call; the test needs a plugin that has not started")
			}
			res, _ := invoke(t, tools, c.tool, c.args)
			if got, _ := json.Marshal(res); res.IsError || !strings.Contains(string(got), c.want) {
				t.Fatalf("%s on a plugin not started yet: %s", c.tool, got)
			}
			// A name the started plugin does not have is still unknown.
			res, _ = invoke(t, tools, c.tool, c.unknown)
			if got := text(res); !res.IsError || !strings.Contains(got, "unknown") && !strings.Contains(got, "no plugin serves") {
				t.Errorf("%s of something the plugin lacks: %s", c.tool, got)
			}
		})
	}
}

// A name of megabytes is quoted back cut short (a few kilobytes at most), by every meta-tool that
// says it does not know it, and by the message for a direct call of it.
func TestHugeNamesAreQuotedShort(t *testing.T) {
	h := helloHandlers(t)
	tools := toolsByName(h)
	huge := "x_hello_" + strings.Repeat("é", 500_000)
	for tool, args := range map[string]any{
		"call_tool":     map[string]any{"name": huge},
		"describe_tool": map[string]any{"name": huge},
		"get_prompt":    map[string]any{"name": huge},
	} {
		raw, _ := json.Marshal(args)
		res, err := tools[tool].Handle(context.Background(), raw, nil)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if got := text(res); len(got) > 4096 || !strings.Contains(got, "x_hello_éé") {
			t.Errorf("%s answered %d bytes: %.120q…", tool, len(got), got)
		}
	}
	raw, _ := json.Marshal(map[string]any{"plugin": strings.Repeat("p", 1<<20)})
	res, err := tools["filter_tools"].Handle(context.Background(), raw, nil)
	if err != nil || !res.IsError || len(text(res)) > 4096 {
		t.Errorf("filter_tools of an unknown plugin: %v, an answer of %d bytes", err, len(text(res)))
	}
	raw, _ = json.Marshal(map[string]any{"name": "core_plugin_get", "arguments": map[string]any{"name": huge}})
	res, err = tools["call_tool"].Handle(context.Background(), raw, nil)
	if got := text(res); err != nil || len(got) > 4096 || !strings.Contains(got, "plugins: hello") {
		t.Errorf("core_plugin_get of an unknown plugin: %v, an answer of %d bytes: %.200q", err, len(got), got)
	}
	for _, name := range []string{huge, strings.Repeat("é", 500_000)} {
		if got := h.DirectCallMessage(name); len(got) > 4096 {
			t.Errorf("DirectCallMessage: %d bytes", len(got))
		}
	}
}

// A tools/call of a plugin or core tool's name says how to call it through
// call_tool, with arguments that pass the tool's schema; a name that is no
// tool at all is called unknown, with the name it probably means.
func TestDirectCallMessage(t *testing.T) {
	h := helloHandlers(t)
	tools := toolsByName(h)
	for _, name := range []string{"x_hello_greet", "core_plugin_list"} {
		msg := h.DirectCallMessage(name)
		_, call, ok := strings.Cut(msg, "Call the tool call_tool with arguments ")
		if !ok || !strings.Contains(msg, name+" is not called directly") {
			t.Fatalf("%s: %s", name, msg)
		}
		call, _, _ = strings.Cut(call, " (describe_tool")
		res, _ := invoke(t, tools, "call_tool", call)
		if res.IsError || strings.Contains(call, `\u003c`) {
			t.Errorf("%s: the call the message gives, %s, fails: %s", name, call, text(res))
		}
	}
	for name, want := range map[string]string{
		"filter_toolz": `unknown tool "filter_toolz"; did you mean "filter_tools"? This gateway's tools are list_tools, filter_tools,`,
		"greet":        `unknown tool "greet"; did you mean "x_hello_greet"?`,
		"x_hello_gret": `unknown tool "x_hello_gret"; did you mean "x_hello_greet",`,
		"x_nope_echo":  `unknown tool "x_nope_echo"`,
	} {
		if msg := h.DirectCallMessage(name); !strings.HasPrefix(msg, want) || strings.Contains(msg, "not called directly:") {
			t.Errorf("DirectCallMessage(%q) = %s, want it to start %s", name, msg, want)
		}
	}
}

// list_tools right after the gateway starts waits, as filter_tools does,
// for a plugin still telling its tools, instead of answering that there
// are none.
func TestListToolsWaitsForFirstListing(t *testing.T) {
	cat := catalog.New()
	mgr := runPlugins(t, cat, supervisor.Policy{}, []supervisor.Spec{{Name: "hello", Path: helloPlugin}})
	tools := toolsByName(New(cat, mgr, func(string) time.Duration { return 10 * time.Second }, hclog.NewNullLogger()))
	if cat.Known("hello") {
		t.Fatal("the plugin's tools are known before list_tools; the test needs a plugin that has not told them")
	}
	for _, args := range []string{`{}`, `{"plugin":"hello"}`} {
		res, out := invoke(t, tools, "list_tools", args)
		if res.IsError || out["total"] != float64(4) {
			t.Errorf("list_tools %s before hello told its tools: %s", args, text(res))
		}
	}
}

// A tool left out because its name was taken is reported where the
// plugin's state is: list_tools and core_plugin_get, not only the log.
func TestCollisionsAreShownWithThePlugin(t *testing.T) {
	h := helloHandlers(t)
	tools := toolsByName(h)
	ch := h.Catalog.Set("hello", &catalog.Manifest{Tools: []protov1.Tool{{Name: "a.b"}, {Name: "a_b_" + catalog.ExternalName("hello", "a.b")[len("x_hello_a_b_"):]}}})
	if len(ch.Collisions) != 1 {
		t.Fatalf("the manifest should collide once: %+v", ch)
	}
	_, out := invoke(t, tools, "list_tools", `{}`)
	plugins, _ := out["plugins"].([]any)
	if len(plugins) != 1 || fmt.Sprint(plugins[0].(map[string]any)["collisions"]) != fmt.Sprint([]any{ch.Collisions[0]}) {
		t.Errorf("list_tools plugins = %v, want hello with its collision %q", plugins, ch.Collisions[0])
	}
	res, out := invoke(t, tools, "call_tool", `{"name":"core_plugin_get","arguments":{"name":"hello"}}`)
	if fmt.Sprint(out["collisions"]) != fmt.Sprint([]any{ch.Collisions[0]}) {
		t.Errorf("core_plugin_get = %s, want its collision", text(res))
	}
}

// call_tool of a misspelt core tool suggests it, and of a meta-tool says
// to call that directly, instead of sending the caller to filter_tools.
func TestUnknownToolNamesCoreAndMetaTools(t *testing.T) {
	tools := gateway(t)
	for name, want := range map[string]string{
		"core_plugin_lst":     `did you mean "core_plugin_list"`,
		"core_plugin_restrat": `did you mean "core_plugin_restart"`,
		"list_tools":          `list_tools is a meta-tool, not a tool behind the gateway: call it directly`,
	} {
		res, _ := invoke(t, tools, "call_tool", `{"name":"`+name+`"}`)
		if !res.IsError || !strings.Contains(text(res), want) {
			t.Errorf("call_tool %s: %s, want %q", name, text(res), want)
		}
	}
}

// A new build put in place of a lazy plugin's binary serves tools the old
// one did not: a call to one starts the plugin to learn them, instead of
// answering from what the old build served that there is no such tool.
func TestCallReachesToolOfReplacedBuild(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "plugin")
	copyFile := func(from string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin+".new", b, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(bin+".new", bin); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(helloPlugin)
	cat := catalog.New()
	mgr := runPlugins(t, cat, supervisor.Policy{LearnIdle: 50 * time.Millisecond}, []supervisor.Spec{{Name: "hello", Path: bin}}, "hello")
	sup, _ := mgr.Get("hello")
	for deadline := time.Now().Add(15 * time.Second); sup.Status().State != supervisor.Lazy; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the plugin started to learn its tools is %s, want lazy again", sup.Status().State)
		}
	}
	copyFile(buildTestPlugin(t))
	tools := toolsByName(New(cat, mgr, func(string) time.Duration { return 10 * time.Second }, hclog.NewNullLogger()))
	res, _ := invoke(t, tools, "call_tool", `{"name":"x_hello_roots_changed"}`)
	if got := text(res); res.IsError || got != "0" {
		t.Errorf("call of a tool only the new build has: %s", got)
	}
}

// A core_plugin_* tool's example names a plugin of the gateway: "<name>"
// passes the schema, but pasted as it is the call names no plugin.
func TestCorePluginExampleNamesAPlugin(t *testing.T) {
	h := helloHandlers(t)
	tools := toolsByName(h)
	for _, name := range []string{"core_plugin_get", "core_plugin_restart"} {
		_, out := invoke(t, tools, "describe_tool", `{"name":"`+name+`"}`)
		ex, _ := out["example"].(map[string]any)["arguments"].(map[string]any)
		if args, _ := ex["arguments"].(map[string]any); args["name"] != "hello" {
			t.Errorf("describe_tool %s example = %v, want the plugin hello", name, out["example"])
		}
		if got := h.DirectCallMessage(name); !strings.Contains(got, `"arguments":{"name":"hello"}`) {
			t.Errorf("DirectCallMessage(%s) = %s, want a call naming hello", name, got)
		}
	}
}
