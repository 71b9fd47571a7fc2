package pluginhost_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// BenchmarkCall measures what a call's client costs: nothing without one (or
// with one that takes no requests), one broker listener and connection per
// call with one, and a round trip per request the plugin makes.
func BenchmarkCall(b *testing.B) {
	p := start(b)
	echo := json.RawMessage(`{"text":"x"}`)
	for _, bc := range []struct {
		name string
		tool string
		peer protov1.Peer
	}{
		{"no client", "echo", nil},
		{"client that takes no requests", "echo", &plugintest.Peer{}},
		{"client not asked", "echo", sampler("s")},
		{"client asked once", "sample", sampler("s")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := p.CallTool(context.Background(), &protov1.CallRequest{Name: bc.tool, Arguments: echo, Peer: bc.peer}, nil)
				if err != nil || res.IsError {
					b.Fatalf("%+v, %v", res, err)
				}
			}
		})
	}
}
