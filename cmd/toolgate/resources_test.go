package main

import (
	"encoding/json"
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
