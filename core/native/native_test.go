package native

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// These cases are answered from the catalog alone; requests that reach a
// plugin run against real plugins in test/e2e.
func TestLibraryAnswersFromTheCatalog(t *testing.T) {
	cat := catalog.New()
	cat.Set("mem", &catalog.Manifest{
		Info:      protov1.Info{Name: "mem"},
		Prompts:   []protov1.Prompt{{Name: "greet", Arguments: []protov1.PromptArgument{{Name: "who", Required: true}}}},
		Resources: []protov1.Resource{{URI: "mem://a", Name: "a"}},
		Templates: []protov1.ResourceTemplate{{URITemplate: "mem://t/{id}", Name: "t"}},
	})
	lib := New(cat, supervisor.NewManager(nil, supervisor.ManagerOptions{}), nil, nil)
	ctx := context.Background()

	if got := lib.ListPrompts(); len(got) != 1 || got[0].Name != "x_mem_greet" || len(got[0].Arguments) != 1 {
		t.Errorf("ListPrompts = %+v, want x_mem_greet with its argument", got)
	}
	rs, ts := lib.ListResources()
	if len(rs) != 1 || rs[0].URI != "mem://a" || len(ts) != 1 || ts[0].URITemplate != "mem://t/{id}" {
		t.Errorf("ListResources = %+v, %+v", rs, ts)
	}
	if !lib.Routes("mem://t/7") || lib.Routes("other://x") {
		t.Error("Routes does not follow the catalog")
	}

	var argErr *ArgumentError
	if _, err := lib.GetPrompt(ctx, "x_mem_greet", map[string]string{}); !errors.As(err, &argErr) ||
		!reflect.DeepEqual(argErr.Missing, []string{"who"}) || !errors.Is(err, protov1.ErrInvalidArgument) {
		t.Errorf("GetPrompt without who: %v", err)
	}
	if _, err := lib.GetPrompt(ctx, "x_mem_nope", nil); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("GetPrompt of an unknown prompt: %v", err)
	}
	for name, want := range map[string]string{"x_mem_gret": `did you mean "x_mem_greet"?`, "greet": `did you mean "x_mem_greet"?`} {
		if _, err := lib.GetPrompt(ctx, name, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("GetPrompt %q: %v; want it to say %q", name, err, want)
		}
	}
	if _, err := lib.ReadResource(ctx, "other://x"); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("ReadResource nobody serves: %v", err)
	}
	// The plugin is not configured here, so a request that reached it would
	// fail: these must be answered without it.
	if _, err := lib.GetPrompt(ctx, "x_mem_greet", map[string]string{"who": "Ada"}); err == nil {
		t.Error("GetPrompt of a plugin that is not configured succeeded")
	}
	for _, req := range []protov1.CompleteRequest{
		{PromptName: "x_mem_greet", Argument: "who", Value: "A"}, // mem does not complete
		{ResourceTemplate: "mem://t/{id}", Argument: "id", Value: "1"},
		{ResourceTemplate: "mem://a", Argument: "x"}, // a resource has nothing to complete
	} {
		got, err := lib.Complete(ctx, &req)
		if err != nil || got == nil || len(got.Values) != 0 {
			t.Errorf("Complete(%+v) = %+v, %v; want no suggestions", req, got, err)
		}
	}
	// A ref to nothing served is the client's mistake, and says what it meant.
	for _, tt := range []struct {
		req  protov1.CompleteRequest
		want string
	}{
		{protov1.CompleteRequest{PromptName: "x_mem_gret", Argument: "who"}, `ref: unknown prompt "x_mem_gret"; did you mean "x_mem_greet"?`},
		{protov1.CompleteRequest{ResourceTemplate: "mem://t/{ib}", Argument: "id"}, `ref: unknown resource template "mem://t/{ib}"; did you mean "mem://t/{id}"?`},
		{protov1.CompleteRequest{ResourceTemplate: "other://{x}", Argument: "x"}, `ref: unknown resource template "other://{x}"; resources/templates/list shows what there is`},
	} {
		_, err := lib.Complete(ctx, &tt.req)
		var unknown *UnknownError
		if !errors.As(err, &unknown) || !errors.Is(err, protov1.ErrInvalidArgument) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Complete(%+v) = %v; want an invalid argument saying %q", tt.req, err, tt.want)
		}
	}
	if err := lib.SubscribeResource(ctx, "other://x"); !errors.Is(err, protov1.ErrNotFound) {
		t.Errorf("SubscribeResource nobody serves: %v", err)
	}
	// mem takes no subscriptions: recorded, nothing asked of it.
	if err := lib.SubscribeResource(ctx, "mem://a"); err != nil {
		t.Errorf("SubscribeResource: %v", err)
	}
	if err := lib.UnsubscribeResource(ctx, "mem://a"); err != nil {
		t.Errorf("UnsubscribeResource: %v", err)
	}
}
