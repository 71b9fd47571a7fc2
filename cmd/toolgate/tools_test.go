package main

import (
	"encoding/json"
	"strings"
	"testing"
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
