package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestResourcesCommands(t *testing.T) {
	_, url := helloGateway(t)

	r := tg(t, nil, "resources", "list", url)
	wantExit(t, r, 0, []string{"URI", "hello://readme", "readme", "hello", "text/plain"}, nil)
	r = tg(t, nil, "resources", "list", url, "-o", "json")
	var l struct {
		Resources []struct{ URI, Plugin string }
		Total     int
	}
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || l.Total != 1 || l.Resources[0].URI != "hello://readme" {
		t.Errorf("resources list -o json: %v %+v\n%s", err, l, r.stdout)
	}

	r = tg(t, nil, "resources", "read", "hello://readme", url)
	wantExit(t, r, 0, []string{"The hello plugin greets, echoes, counts and draws one pixel."}, nil)
	r = tg(t, nil, "resources", "read", "hello://readme", url, "-o", "json")
	wantExit(t, r, 0, []string{`"uri": "hello://readme"`, `"mimeType": "text/plain"`}, nil)
	r = tg(t, nil, "resources", "read", "nowhere://x", url)
	wantExit(t, r, 1, nil, []string{`no plugin serves resource "nowhere://x"`})
}

// What resources read prints when it fails names its own commands, not the
// meta-tools the gateway names for an assistant.
func TestResourcesReadFailsInCLIWords(t *testing.T) {
	_, url := helloGateway(t)

	r := tg(t, nil, "resources", "read", "nowhere://x", url)
	wantExit(t, r, 1, nil, []string{`error: no plugin serves resource "nowhere://x"`,
		"hint: toolgate resources list shows the resources and templates there are"})
	noMetaWords(t, r)
	r = tg(t, nil, "resources", "read", "hello://readm", url)
	wantExit(t, r, 1, nil, []string{`error: no plugin serves resource "hello://readm"; did you mean "hello://readme"?`})
	noMetaWords(t, r)
	r = tg(t, nil, "resources", "read", "", url)
	wantExit(t, r, 2, nil, []string{`URI "": want a resource's URI, as toolgate resources list shows them`})
	noMetaWords(t, r)

	// The plugin's own refusal is passed on as it is.
	r = tg(t, nil, "resources", "read", "hello://greeting/xx", url)
	wantExit(t, r, 1, nil, []string{`read resource "hello://greeting/xx" from plugin "hello": hello has no greeting in "xx"`})
	noMetaWords(t, r)

	wantExit(t, tg(t, nil, "plugins", "stop", "hello", url), 0, nil, nil)
	r = tg(t, nil, "resources", "read", "hello://readme", url)
	wantExit(t, r, 1, nil, []string{`error: cannot read resource "hello://readme": plugin hello is stopped`,
		"hint: toolgate plugins start hello starts it"})
	noMetaWords(t, r)
}

// metaWords are what the gateway's answers name for an assistant: its
// meta-tools and their arguments.
var metaWords = []string{"list_tools", "filter_tools", "describe_tool", "call_tool", "list_core_tools",
	"list_resources", "describe_resource", "get_resource", "list_prompts", "describe_prompt", "get_prompt",
	"core_plugin_", "argument \"", "; offset 0"}

// noMetaWords fails the test when the CLI printed a meta-tool's words.
func noMetaWords(t *testing.T, r result) {
	t.Helper()
	for _, w := range metaWords {
		if strings.Contains(r.stdout, w) || strings.Contains(r.stderr, w) {
			t.Errorf("the CLI printed the meta-tools' %q:\nstdout:\n%s\nstderr:\n%s", w, r.stdout, r.stderr)
		}
	}
}
