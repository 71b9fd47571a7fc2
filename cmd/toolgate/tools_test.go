package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolgate/toolgate/core/client"
)

func TestToolsCommands(t *testing.T) {
	_, url := helloGateway(t)

	r := tg(t, nil, "tools", "list", url)
	wantExit(t, r, 0, []string{"NAME", "x_hello_count", "x_hello_greet", "PLUGIN", "STATE", "hello", "running"}, nil)

	r = tg(t, nil, "tools", "list", url, "-o", "json", "--limit", "2")
	wantExit(t, r, 0, nil, nil)
	var list struct {
		Tools     []struct{ Name, Plugin string }
		Total     int
		Truncated bool
		Plugins   []struct{ Name, State string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("tools list -o json: %v\n%s", err, r.stdout)
	}
	if len(list.Tools) != 2 || list.Total != 4 || !list.Truncated || len(list.Plugins) != 1 || list.Plugins[0].State != "running" {
		t.Errorf("tools list -o json --limit 2 = %+v", list)
	}

	r = tg(t, nil, "tools", "search", "greet someone by name", url)
	wantExit(t, r, 0, []string{"SCORE", "x_hello_greet"}, nil)
	if first := strings.Split(r.stdout, "\n")[1]; !strings.HasPrefix(first, "x_hello_greet") {
		t.Errorf("best match is not first:\n%s", r.stdout)
	}
	r = tg(t, nil, "tools", "search", "--pattern", "x_hello_c*", url, "-o", "json")
	wantExit(t, r, 0, []string{`"x_hello_count"`}, nil)
	if strings.Contains(r.stdout, "x_hello_greet") {
		t.Errorf("pattern x_hello_c* matched greet:\n%s", r.stdout)
	}

	r = tg(t, nil, "tools", "describe", "x_hello_count", url)
	wantExit(t, r, 0, []string{"x_hello_count  (plugin hello, running)", "ARGUMENT", "to", "integer", "yes",
		"Annotations: read-only", "Example: toolgate call x_hello_count --arg 'to=1'"}, nil)
	r = tg(t, nil, "tools", "describe", "x_hello_greet", url)
	wantExit(t, r, 0, []string{`language  string ("en"|"fr"|"de")`}, nil)
	r = tg(t, nil, "tools", "describe", "x_hello_count", url, "-o", "json")
	var d struct {
		Name        string
		InputSchema json.RawMessage `json:"input_schema"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || d.Name != "x_hello_count" || len(d.InputSchema) == 0 {
		t.Errorf("describe -o json: %v %+v\n%s", err, d, r.stdout)
	}

	r = tg(t, nil, "tools", "describe", "x_hello_gret", url)
	wantExit(t, r, 1, nil, []string{"error:", "x_hello_greet"})
}

// TestToolsSearchWeakMatch: when no tool matches a request well, the CLI
// shows filter_tools' note, the plugins on offer and the plugin that is down,
// with its config error, instead of a bare list of guesses.
func TestToolsSearchWeakMatch(t *testing.T) {
	gw, url := helloGateway(t, `plugin "cluster" {
  type = "kubernetes"
  auto_start = true
  config { kubeconfig = "/nonexistent/kubeconfig" }
}`)
	waitFailed := time.Now().Add(30 * time.Second)
	for !strings.Contains(tg(t, nil, "plugins", "status", "cluster", url).stdout, "failed") {
		if time.Now().After(waitFailed) {
			t.Fatal("plugin cluster did not fail on its kubeconfig")
		}
		time.Sleep(50 * time.Millisecond)
	}

	r := tg(t, nil, "tools", "search", "list the config maps in a namespace", url)
	wantExit(t, r, 0, []string{"No tool matches", "PLUGIN", "ABOUT", "hello", "greet",
		"UNAVAILABLE", "cluster", "failed", "/nonexistent/kubeconfig"}, nil)

	r = tg(t, nil, "tools", "search", "list the config maps in a namespace", url, "-o", "json")
	var list struct {
		Note    string
		Plugins []struct {
			Name  string
			About []string
		}
		Unavailable []struct{ Name, State, LastError string } `json:"unavailable"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("tools search -o json: %v\n%s", err, r.stdout)
	}
	if list.Note == "" || len(list.Plugins) != 1 || list.Plugins[0].Name != "hello" || len(list.Plugins[0].About) == 0 ||
		len(list.Unavailable) != 1 || list.Unavailable[0].Name != "cluster" || list.Unavailable[0].State != "failed" {
		t.Errorf("tools search -o json on a weak match = %+v", list)
	}

	// A new session's instructions name the plugin that is down, and why.
	resp, err := http.Post(gw.URL, "application/json", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var init struct {
		Result struct{ Instructions string }
	}
	err = json.NewDecoder(resp.Body).Decode(&init)
	resp.Body.Close()
	if err != nil || !strings.Contains(init.Result.Instructions, "Not available now") ||
		!strings.Contains(init.Result.Instructions, "- cluster: failed (") {
		t.Errorf("instructions with a failed plugin (%v):\n%s", err, init.Result.Instructions)
	}

	r = tg(t, nil, "tools", "search", "--plugin", "cluster", url)
	wantExit(t, r, 0, []string{`Plugin "cluster" has no tools`, "failed", "toolgate plugins restart cluster tries again once it is fixed"}, nil)
	noMetaWords(t, r)
	if strings.Contains(r.stdout, "NAME") {
		t.Errorf("an empty tool table before the note:\n%s", r.stdout)
	}
	r = tg(t, nil, "tools", "search", "--plugin", "cluster", url, "-o", "json")
	wantExit(t, r, 0, []string{"toolgate plugins restart cluster"}, nil)
	noMetaWords(t, r)
}

// tools search says what is wrong with its flags and what its notes advise
// in its own words, not the meta-tools' the gateway answers with.
func TestToolsSearchInCLIWords(t *testing.T) {
	_, url := helloGateway(t)
	for _, tt := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{[]string{"--plugin", "helo"}, 1, "", `error: --plugin "helo": no plugin has that name; did you mean "hello"? The plugins are hello.`},
		{[]string{"--offset", "50"}, 0, "--offset 50 is past the end: there are 4; --offset 0 starts from the first", ""},
		{[]string{"--pattern", "x_[hello"}, 2, "", `--pattern "x_[hello": syntax error in pattern`},
		{[]string{"--limit", "5000"}, 2, "", "--limit 5000: want 1 to 1000"},
		{[]string{strings.Repeat("é", 1001)}, 2, "", "QUERY is 1001 characters long; at most 1000"},
	} {
		r := tg(t, nil, append([]string{"tools", "search", url}, tt.args...)...)
		var stdout, stderr []string
		if tt.stdout != "" {
			stdout = []string{tt.stdout}
		}
		if tt.stderr != "" {
			stderr = []string{tt.stderr}
		}
		wantExit(t, r, tt.code, stdout, stderr)
		noMetaWords(t, r)
	}
	// tools list pages the same way, and every listing takes --plugin so.
	r := tg(t, nil, "tools", "list", "--offset", "50", url)
	wantExit(t, r, 0, []string{"--offset 50 is past the end"}, nil)
	noMetaWords(t, r)
	for _, listing := range []string{"tools", "resources", "prompts"} {
		r := tg(t, nil, listing, "list", "--plugin", "nope", url)
		wantExit(t, r, 1, nil, []string{`error: --plugin "nope": no plugin has that name; the plugins are hello`})
		noMetaWords(t, r)
	}
}

// describe shows a schema's defaults, which the plugin applies when an
// argument is left out.
func TestDescribeShowsDefaults(t *testing.T) {
	var out bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetOut(&out)
	err := describeText(cmd, &client.ToolDescription{Name: "x_p_list", Plugin: "p", Description: "List things.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer","description":"At most this many.","default":50},"sort":{"type":"string","enum":["name","age"],"default":"name"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"limit     integer", "At most this many. Default: 50.", `sort      string ("name"|"age")`, `Default: "name".`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("describe lacks %q:\n%s", want, out.String())
		}
	}
}

// Every filter of filter_tools has its flag on tools search.
func TestToolsSearchFilterFlags(t *testing.T) {
	_, url := helloGateway(t)
	r := tg(t, nil, "tools", "search", "--description-filter", "english", url)
	wantExit(t, r, 0, []string{"x_hello_greet"}, nil)
	if strings.Contains(r.stdout, "x_hello_echo") {
		t.Errorf("--description-filter english found echo:\n%s", r.stdout)
	}
	r = tg(t, nil, "tools", "search", "--description-filter", "english", "--case-sensitive", url)
	if r.code != 0 || strings.Contains(r.stdout, "x_hello_greet") {
		t.Errorf("--case-sensitive still matched English for english: %+v", r)
	}
	r = tg(t, nil, "tools", "search", "--pattern", "x_hello_greet", "--include-schema", url, "-o", "json")
	wantExit(t, r, 0, []string{`"input_schema"`, `"language"`}, nil)
}
