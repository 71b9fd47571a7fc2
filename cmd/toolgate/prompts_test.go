package main

import (
	"encoding/json"
	"testing"
)

func TestPromptsCommands(t *testing.T) {
	_, url := helloGateway(t)

	r := tg(t, nil, "prompts", "list", url)
	wantExit(t, r, 0, []string{"NAME", "x_hello_welcome", "Welcome a new user."}, nil)
	r = tg(t, nil, "prompts", "list", url, "-o", "json")
	wantExit(t, r, 0, []string{`"name": "x_hello_welcome"`}, nil)

	r = tg(t, nil, "prompts", "get", "x_hello_welcome", "--arg", "name=Ada", url)
	wantExit(t, r, 0, []string{"user: Please welcome Ada warmly."}, nil)
	r = tg(t, nil, "prompts", "get", "x_hello_welcome", "--arg", "name=Ada", url, "-o", "json")
	var p struct {
		Messages []struct {
			Role    string
			Content struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || len(p.Messages) != 1 || p.Messages[0].Role != "user" || p.Messages[0].Content.Text != "Please welcome Ada warmly." {
		t.Errorf("prompts get -o json: %v %+v\n%s", err, p, r.stdout)
	}
	r = tg(t, nil, "prompts", "get", "x_hello_welcome", url)
	wantExit(t, r, 1, nil, []string{"prompt x_hello_welcome requires --arg name=VALUE"})
}
