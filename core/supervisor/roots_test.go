package supervisor

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
)

func TestRootsChangedReachesRunningPluginsOnly(t *testing.T) {
	h := run(t, Spec{}, fast)
	ctx := context.Background()
	if err := h.sup.RootsChanged(ctx); err != nil {
		t.Fatalf("RootsChanged of a lazy plugin: %v", err)
	}
	if st := h.sup.Status(); st.State != Lazy {
		t.Fatalf("RootsChanged started the lazy plugin: %s", st.State)
	}
	if res, err := call(ctx, h.sup, "roots_changed", `{}`, false); err != nil || res.Content[0].Text != "0" {
		t.Fatalf("roots_changed = %+v, %v; want 0 (the notice before the start is not replayed)", res, err)
	}
	for range 2 {
		if err := h.sup.RootsChanged(ctx); err != nil {
			t.Fatalf("RootsChanged: %v", err)
		}
	}
	if res, err := call(ctx, h.sup, "roots_changed", `{}`, false); err != nil || res.Content[0].Text != "2" {
		t.Errorf("roots_changed = %+v, %v; want 2", res, err)
	}
}

// The manager tells every running plugin at once, and returns when they have
// heard.
func TestManagerTellsEveryRunningPluginRootsChanged(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH")}
	cat := catalog.New()
	m := NewManager([]Spec{
		{Name: "a", Path: testPlugin, Env: env, AutoStart: true},
		{Name: "b", Path: testPlugin, Env: env, AutoStart: true},
	}, ManagerOptions{Catalog: cat, Store: catalog.ManifestStore{Dir: t.TempDir()}, Policy: fast, Logger: hclog.NewNullLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	m.Run(ctx)
	t.Cleanup(func() { cancel(); m.Wait() })
	for _, name := range []string{"a", "b"} {
		s, _ := m.Get(name)
		deadline := time.Now().Add(15 * time.Second)
		for s.Status().State != Running {
			if time.Now().After(deadline) {
				t.Fatalf("plugin %s: %s", name, s.Status().State)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	m.RootsChanged(context.Background())
	for _, name := range []string{"a", "b"} {
		s, _ := m.Get(name)
		if res, err := call(context.Background(), s, "roots_changed", `{}`, false); err != nil || res.Content[0].Text != "1" {
			t.Errorf("plugin %s: roots_changed = %+v, %v; want 1", name, res, err)
		}
	}
}
