package mcpstdio_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// TestEverythingCompletesAndSubscribes: completion and resource
// subscriptions pass through to server-everything. It has a server of its
// own, as turning on resource updates changes the server's state.
func TestEverythingCompletesAndSubscribes(t *testing.T) {
	h := start(t, everything(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	info, err := h.host.GetInfo(ctx)
	if err != nil || !info.Capabilities.Completions || !info.Capabilities.ResourceSubscribe {
		t.Fatalf("GetInfo = %+v, %v; want completions and resource subscriptions", info.Capabilities, err)
	}
	c := h.host.(protov1.Completer)
	for _, tc := range []struct {
		req  protov1.CompleteRequest
		want []string
	}{
		{protov1.CompleteRequest{PromptName: "completable-prompt", Argument: "department", Value: "S"}, []string{"Sales", "Support"}},
		{protov1.CompleteRequest{PromptName: "completable-prompt", Argument: "name", Value: "",
			Context: map[string]string{"department": "Engineering"}}, []string{"Alice", "Bob", "Charlie"}},
		{protov1.CompleteRequest{ResourceTemplate: "demo://resource/dynamic/text/{resourceId}", Argument: "resourceId", Value: "12"}, []string{"12"}},
		{protov1.CompleteRequest{ResourceTemplate: "demo://resource/dynamic/text/{resourceId}", Argument: "resourceId", Value: "x"}, nil},
	} {
		got, err := c.Complete(ctx, &tc.req)
		if err != nil || !reflect.DeepEqual(got.Values, tc.want) {
			t.Errorf("Complete(%+v) = %+v, %v; want %v", tc.req, got, err, tc.want)
		}
	}

	events := h.watch(t)
	rs := h.host.(protov1.ResourceSubscriber)
	const uri = "demo://resource/dynamic/text/5"
	if err := rs.SubscribeResource(ctx, uri); err != nil {
		t.Fatalf("SubscribeResource: %v", err)
	}
	// server-everything sends updates of subscribed resources once this
	// tool turns them on.
	if r := h.call(t, "toggle-subscriber-updates", map[string]any{}); r.IsError {
		t.Fatalf("toggle-subscriber-updates: %s", textOf(r))
	}
	if e := waitEvent(t, events, protov1.EventResourceUpdated); e.URI != uri {
		t.Errorf("resource update for %q, want %q", e.URI, uri)
	}
	if err := rs.UnsubscribeResource(ctx, uri); err != nil {
		t.Errorf("UnsubscribeResource: %v", err)
	}
	h.call(t, "toggle-subscriber-updates", map[string]any{})
}
