package main

import (
	"encoding/json"
	"testing"
)

func TestPluginsCommands(t *testing.T) {
	_, url := helloGateway(t)

	r := tg(t, nil, "plugins", url)
	wantExit(t, r, 0, []string{"PLUGIN", "STATE", "hello", "running", "4"}, nil)
	r = tg(t, nil, "plugins", "status", url, "-o", "json")
	var ps []struct {
		Name, State string
		Tools, Pid  int
	}
	if err := json.Unmarshal([]byte(r.stdout), &ps); err != nil || len(ps) != 1 || ps[0].State != "running" || ps[0].Pid == 0 {
		t.Fatalf("plugins status -o json: %v %+v\n%s", err, ps, r.stdout)
	}
	firstPid := ps[0].Pid

	r = tg(t, nil, "plugins", "stop", "hello", url)
	wantExit(t, r, 0, []string{"hello", "stopped"}, nil)
	r = tg(t, nil, "call", "x_hello_echo", "--arg", "text=hi", url)
	wantExit(t, r, 1, nil, []string{"hello"})
	r = tg(t, nil, "plugins", "start", "hello", url, "-o", "json")
	wantExit(t, r, 0, []string{`"state": "running"`}, nil)
	r = tg(t, nil, "plugins", "restart", "hello", url, "-o", "json")
	var p struct {
		State string
		Pid   int
	}
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || p.State != "running" || p.Pid == 0 || p.Pid == firstPid {
		t.Errorf("plugins restart -o json: %v %+v (first pid %d)\n%s", err, p, firstPid, r.stdout)
	}
	r = tg(t, nil, "plugins", "status", "hello", url)
	wantExit(t, r, 0, []string{"hello", "running"}, nil)
	r = tg(t, nil, "plugins", "start", "nosuch", url)
	wantExit(t, r, 1, nil, []string{`no plugin named "nosuch"`})
}
