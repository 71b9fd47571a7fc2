package plugin_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugintest"
)

// A client's answer of the wrong shape is told the handler in JSON's terms,
// which its author and the client's can act on, never in Go's.
func TestMalformedClientAnswerSpeaksJSON(t *testing.T) {
	b := plugintest.ServePlugin(t, askingPlugin())
	for answer, want := range map[string]string{
		`"yes"`:         `sampling/createMessage: the client's result is malformed: expected an object, got a string`,
		`{"content":5}`: `sampling/createMessage: the client's result is malformed: "content": expected a list, got a number`,
	} {
		peer := &plugintest.Peer{CreateMessage: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(answer), nil }}
		res := callWithPeer(t, b, peer, "summarize", `{"text":"x"}`)
		if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, want) || strings.Contains(res.Content[0].Text, "Go ") {
			t.Errorf("answer %s: %+v; want an error result saying %q", answer, res, want)
		}
	}
}
