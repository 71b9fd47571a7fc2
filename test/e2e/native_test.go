package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/internal/testparts"
)

// nativeRun is what testdata/native-client.mjs saw.
type nativeRun struct {
	Capabilities struct {
		Completions *struct{} `json:"completions"`
		Prompts     *struct {
			ListChanged bool `json:"listChanged"`
		} `json:"prompts"`
		Resources *struct {
			Subscribe   bool `json:"subscribe"`
			ListChanged bool `json:"listChanged"`
		} `json:"resources"`
	} `json:"capabilities"`
	Errors  []string `json:"errors"`
	Prompts []struct {
		Name      string   `json:"name"`
		Arguments []string `json:"arguments"`
	} `json:"prompts"`
	Rendered struct {
		Messages []struct {
			Role    string `json:"role"`
			Content struct{ Type, Text string }
		} `json:"messages"`
	} `json:"rendered"`
	MissingArgument string                    `json:"missingArgument"`
	Departments     struct{ Values []string } `json:"departments"`
	Names           struct{ Values []string } `json:"names"`
	Resources       []string                  `json:"resources"`
	Templates       []string                  `json:"templates"`
	Read            []struct {
		URI, MimeType, Text string
	} `json:"read"`
	ResourceIDs         struct{ Values []string } `json:"resourceIds"`
	Subscribed          []string                  `json:"subscribed"`
	UnknownSubscription string                    `json:"unknownSubscription"`
}

// runNativeClient runs the official TypeScript client's prompt, resource
// and completion calls against a gateway.
func runNativeClient(t *testing.T, url string) nativeRun {
	t.Helper()
	var run nativeRun
	sdk := filepath.Join(testparts.NodeModules(t), "node_modules", "@modelcontextprotocol", "sdk")
	testparts.RunNodeJSON(t, 90*time.Second, &run, []string{"MCP_SDK_DIR=" + sdk}, testdataScript(t, "native-client.mjs"), url)
	return run
}

// TestNativePromptsResourcesCompletions: a lazy server-everything, known from
// the manifest of an earlier run, lists its prompts, resources and templates
// through MCP's own methods before it starts; rendering a prompt starts it;
// arguments and template variables complete at the server; a subscribed
// resource's updates come back through the gateway.
func TestNativePromptsResourcesCompletions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	plugins := everythingPlugin(t, "everything", false)

	// First run: the lazy plugin is started once in the background to learn
	// what it serves, and its manifest is stored.
	first := startGateway(t, setup{Plugins: plugins})
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(first.StateDir, "manifests", "everything-*.json")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first run stored no manifest of the lazy plugin\n%s", first.log.tail(40))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := first.stop(syscall.SIGTERM, 20*time.Second); err != nil {
		t.Fatalf("first gateway exited with %v", err)
	}

	second := startGateway(t, setup{Plugins: plugins, StateDir: first.StateDir})
	c := connectHTTP(t, second.URL)
	if st := c.plugin(ctx, "everything"); st.State != "lazy" {
		t.Fatalf("before any request the plugin is %+v, want lazy", st)
	}
	run := runNativeClient(t, second.URL)
	if len(run.Errors) > 0 {
		t.Errorf("client errors: %v", run.Errors)
	}
	if run.Capabilities.Completions == nil || run.Capabilities.Prompts == nil || !run.Capabilities.Prompts.ListChanged ||
		run.Capabilities.Resources == nil || !run.Capabilities.Resources.Subscribe || !run.Capabilities.Resources.ListChanged {
		t.Errorf("capabilities = %+v, want completions, prompts with listChanged, resources with subscribe and listChanged", run.Capabilities)
	}

	var prompts []string
	for _, p := range run.Prompts {
		prompts = append(prompts, p.Name+"("+strings.Join(p.Arguments, ",")+")")
	}
	wantPrompts := []string{"x_everything_args-prompt(city,state)", "x_everything_completable-prompt(department,name)",
		"x_everything_resource-prompt(resourceType,resourceId)", "x_everything_simple-prompt()"}
	if !reflect.DeepEqual(prompts, wantPrompts) {
		t.Errorf("prompts/list = %v, want %v", prompts, wantPrompts)
	}
	if m := run.Rendered.Messages; len(m) != 1 || m[0].Role != "user" || m[0].Content.Type != "text" || !strings.Contains(m[0].Content.Text, "Lisbon, Lisboa") {
		t.Errorf("prompts/get args-prompt = %+v, want one user text message naming Lisbon, Lisboa", run.Rendered)
	}
	if !strings.Contains(run.MissingArgument, `missing required argument(s) ["city"]`) {
		t.Errorf("prompts/get without city answered %q, want the missing argument named", run.MissingArgument)
	}
	if !reflect.DeepEqual(run.Departments.Values, []string{"Engineering"}) {
		t.Errorf("completing department from %q = %v, want [Engineering]", "E", run.Departments.Values)
	}
	if !reflect.DeepEqual(run.Names.Values, []string{"David", "Eve", "Frank"}) {
		t.Errorf("completing name with department Sales = %v, want [David Eve Frank]", run.Names.Values)
	}

	if !contains(run.Resources, "demo://resource/static/document/features.md") || !contains(run.Resources, "toolgate://catalog") {
		t.Errorf("resources/list = %v, want server-everything's documents beside toolgate://catalog", run.Resources)
	}
	wantTemplates := []string{"demo://resource/dynamic/blob/{resourceId}", "demo://resource/dynamic/text/{resourceId}"}
	if !reflect.DeepEqual(run.Templates, wantTemplates) {
		t.Errorf("resources/templates/list = %v, want %v", run.Templates, wantTemplates)
	}
	if len(run.Read) != 1 || run.Read[0].URI != "demo://resource/dynamic/text/7" || !strings.HasPrefix(run.Read[0].Text, "Resource 7:") {
		t.Errorf("resources/read of a templated URI = %+v", run.Read)
	}
	if !reflect.DeepEqual(run.ResourceIDs.Values, []string{"42"}) {
		t.Errorf("completing resourceId 42 = %v, want [42]", run.ResourceIDs.Values)
	}
	if !reflect.DeepEqual(run.Subscribed, []string{"demo://resource/dynamic/text/3"}) {
		t.Errorf("resource updates = %v, want demo://resource/dynamic/text/3's", run.Subscribed)
	}
	if !strings.Contains(run.UnknownSubscription, "nowhere://at/all") {
		t.Errorf("subscribing to a URI nobody serves answered %q, want an error naming it", run.UnknownSubscription)
	}
	if st := c.plugin(ctx, "everything"); !running(st) {
		t.Errorf("after prompts/get the plugin is %+v, want running", st)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestNativeReadOfTemplateSaysWhyNot: resources/read of a URI of the hello
// plugin's template that the plugin has no resource for answers with the
// plugin's own words, named with the plugin, and a huge such URI with a
// bounded message.
func TestNativeReadOfTemplateSaysWhyNot(t *testing.T) {
	g := startGateway(t, setup{Plugins: pathPlugin("hello", bins.hello, true)})
	c := connectGo(t, goTransport{url: g.URL}, goClientOptions{tag: "go"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The first read waits for the plugin to list its template.
	read, err := c.ReadResource(ctx, &gomcp.ReadResourceParams{URI: "hello://greeting/de"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "Hallo" {
		t.Fatalf("resources/read hello://greeting/de: %+v, %v", read, err)
	}
	_, err = c.ReadResource(ctx, &gomcp.ReadResourceParams{URI: "hello://greeting/es"})
	if want := `read resource hello://greeting/es from plugin "hello": hello has no greeting in "es"; it speaks en, fr and de`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("resources/read hello://greeting/es: %v; want it to say %q", err, want)
	}
	_, err = c.ReadResource(ctx, &gomcp.ReadResourceParams{URI: "hello://greeting/" + strings.Repeat("y", 100_000)})
	if err == nil || len(err.Error()) > 2000 || !strings.Contains(err.Error(), `from plugin "hello": hello has no greeting in "yyy`) {
		t.Errorf("resources/read of a huge URI: %d bytes: %.300q", len(fmt.Sprint(err)), fmt.Sprint(err))
	}
	g.requireAlive()
}
