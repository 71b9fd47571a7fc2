package supervisor

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
)

// A request for something not in the catalog right after start-up waits for
// the plugins that have not told what they serve, and only for those: the
// named one for an x_<plugin>_ name, every one for a URI; a plugin that
// fails is reported, not waited for again.
func TestAwaitCatalog(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH")}
	cat := catalog.New()
	m := NewManager([]Spec{
		{Name: "a", Path: testPlugin, Env: env},
		{Name: "b", Path: testPlugin, Env: env},
		{Name: "bad", Path: testPlugin, Env: env, Config: json.RawMessage(`{"x":1}`)},
	}, ManagerOptions{Catalog: cat, Store: catalog.ManifestStore{Dir: t.TempDir()}, Policy: fast, Logger: hclog.NewNullLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); m.Wait() })
	m.Run(ctx)

	wait, stop := context.WithTimeout(ctx, 15*time.Second)
	defer stop()
	if err := m.AwaitOwner(wait, "x_a_echo"); err != nil {
		t.Fatalf("AwaitOwner(x_a_echo): %v", err)
	}
	if !cat.Known("a") {
		t.Fatal("plugin a is not in the catalog once AwaitOwner returned")
	}
	err := m.AwaitOwner(wait, "demo://some/resource")
	if !cat.Known("b") {
		t.Errorf("plugin b is not in the catalog after a wait for every plugin (err %v)", err)
	}
	if err != nil && !strings.Contains(err.Error(), `plugin "bad"`) {
		t.Errorf("AwaitOwner(uri) = %v; the only failure may be the plugin with a bad config", err)
	}
	// Now every plugin has told or failed: nothing is waited for.
	start := time.Now()
	if err := m.AwaitCatalog(wait); err != nil {
		t.Errorf("AwaitCatalog once settled = %v, want nil", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("AwaitCatalog once settled took %s", d)
	}
}

// A lazy plugin with no stored manifest is already starting, to learn what it
// serves, when Run returns: a request answered right after start-up never
// sees it lazy with no tools and takes that for all there is.
func TestLearningHasBegunWhenRunReturns(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH")}
	for range 20 {
		cat := catalog.New()
		m := NewManager([]Spec{{Name: "a", Path: testPlugin, Env: env}},
			ManagerOptions{Catalog: cat, Store: catalog.ManifestStore{Dir: t.TempDir()}, Policy: fast, Logger: hclog.NewNullLogger()})
		ctx, cancel := context.WithCancel(context.Background())
		m.Run(ctx)
		st := m.Statuses()[0]
		cancel()
		m.Wait()
		if st.State != Starting {
			t.Fatalf("right after Run, the lazy plugin never run is %s; want %s", st.State, Starting)
		}
	}
}
