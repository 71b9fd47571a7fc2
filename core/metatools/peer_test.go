package metatools

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// call_tool hands the plugin the client its context carries, and the plugin
// process asks that client.
func TestCallToolCarriesTheCallingClient(t *testing.T) {
	cat := catalog.New()
	spec := supervisor.Spec{Name: "tp", Path: buildTestPlugin(t), AutoStart: true, Env: []string{"PATH=" + os.Getenv("PATH")}}
	mgr := runPlugins(t, cat, supervisor.Policy{}, []supervisor.Spec{spec}, "tp")
	callTool := toolsByName(New(cat, mgr, func(string) time.Duration { return 10 * time.Second }, hclog.NewNullLogger()))["call_tool"]
	args := json.RawMessage(`{"name":"x_tp_sample","arguments":{"text":"ping"}}`)

	peer := &plugintest.Peer{CreateMessage: plugintest.Answer(map[string]any{
		"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "pong"}})}
	res, err := callTool.Handle(protov1.WithPeer(context.Background(), peer), args, nil)
	if err != nil || res.IsError || text(res) != "pong" {
		t.Errorf("with a client: %+v, %v; want pong", res, err)
	}
	if n := len(peer.Requests()); n != 1 {
		t.Errorf("the client was asked %d times; want 1", n)
	}

	res, err = callTool.Handle(context.Background(), args, nil)
	if want := "sampling/createMessage: no client to ask"; err != nil || !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("without a client: %+v, %v; want an error result saying %q", res, err, want)
	}
}
