package plugin_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/plugintest"
	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestCompleteAndResourceUpdatesCrossTheWire(t *testing.T) {
	p := &plugin.Plugin{
		Name: "cities",
		Prompts: []plugin.Prompt{{
			Def: protov1.Prompt{Name: "trip", Arguments: []protov1.PromptArgument{{Name: "city"}}},
			Render: func(context.Context, map[string]string) (*plugin.PromptResult, error) {
				return &plugin.PromptResult{}, nil
			},
		}},
		Complete: func(_ context.Context, req *plugin.CompleteRequest) (*plugin.Completion, error) {
			var out plugin.Completion
			for _, c := range []string{"Lisbon", "Lima", "London"} {
				if strings.HasPrefix(c, req.Value) && req.Context["country"] != "nowhere" {
					out.Values = append(out.Values, c)
				}
			}
			return &out, nil
		},
	}
	b := plugintest.ServePlugin(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	info, err := b.GetInfo(ctx)
	if err != nil || !info.Capabilities.Completions || !info.Capabilities.Watch || info.ProtocolMinor != protov1.ProtocolMinor {
		t.Fatalf("GetInfo = %+v, %v; want completions and watch at minor %d", info, err, protov1.ProtocolMinor)
	}
	c, ok := b.(protov1.Completer)
	if !ok {
		t.Fatal("the host side is no Completer")
	}
	got, err := c.Complete(ctx, &protov1.CompleteRequest{PromptName: "trip", Argument: "city", Value: "Li"})
	if err != nil || !reflect.DeepEqual(got.Values, []string{"Lisbon", "Lima"}) {
		t.Errorf("Complete Li = %+v, %v", got, err)
	}
	got, err = c.Complete(ctx, &protov1.CompleteRequest{PromptName: "trip", Argument: "city", Value: "L", Context: map[string]string{"country": "nowhere"}})
	if err != nil || len(got.Values) != 0 {
		t.Errorf("Complete with context = %+v, %v; want none", got, err)
	}
	if _, err := c.Complete(ctx, &protov1.CompleteRequest{PromptName: "nope", Argument: "x"}); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("Complete of an unknown prompt: err = %v, want not found", err)
	}

	events := make(chan protov1.Event, 4)
	watchCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- b.Watch(watchCtx, func(e protov1.Event) { events <- e }) }()
	deadline := time.After(5 * time.Second)
	for got := false; !got; {
		// The Watch stream may not be open yet: say it again until it is.
		p.ResourceUpdated("mem://weather")
		select {
		case e := <-events:
			if e.Kind != protov1.EventResourceUpdated || e.URI != "mem://weather" {
				t.Fatalf("event = %+v", e)
			}
			got = true
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("no resource update came through Watch")
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("Watch ended with %v", err)
	}
}

func TestPluginWithoutCompleteHasNoSuggestions(t *testing.T) {
	b := plugintest.ServePlugin(t, &plugin.Plugin{Name: "plain"})
	ctx := context.Background()
	info, err := b.GetInfo(ctx)
	if err != nil || info.Capabilities.Completions {
		t.Fatalf("GetInfo = %+v, %v; want no completions", info, err)
	}
	got, err := b.(protov1.Completer).Complete(ctx, &protov1.CompleteRequest{PromptName: "p", Argument: "a"})
	if err != nil || len(got.Values) != 0 {
		t.Errorf("Complete = %+v, %v; want an empty answer", got, err)
	}
}
