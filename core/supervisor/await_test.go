package supervisor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/internal/testparts"
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

// A lazy plugin whose binary was replaced (a new build put in place) has yet
// to tell what it serves now: a request for a name the catalog does not
// know starts it, instead of answering from what the old build served.
func TestReplacedBinaryIsAskedAgain(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "plugin")
	b, err := os.ReadFile(testPlugin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	p := fast
	p.LearnIdle = 50 * time.Millisecond
	cat := catalog.New()
	m := NewManager([]Spec{{Name: "a", Path: bin, Env: []string{"PATH=" + os.Getenv("PATH")}}},
		ManagerOptions{Catalog: cat, Store: catalog.ManifestStore{Dir: t.TempDir()}, Policy: p, Logger: hclog.NewNullLogger()})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); m.Wait() })
	m.Run(ctx)
	sup, _ := m.Get("a")
	waitState(t, sup, Running, 10*time.Second)
	waitState(t, sup, Lazy, 10*time.Second) // learnt, then stopped while idle
	if m.Untold("a") {
		t.Fatal("a lazy plugin that told what it serves counts as untold")
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	if !m.Untold("a") {
		t.Fatal("a lazy plugin whose binary was replaced does not count as untold")
	}
	if err := m.AwaitOwner(ctx, "x_a_new_tool"); err != nil {
		t.Fatal(err)
	}
	if st := sup.Status(); st.State != Running || m.Untold("a") {
		t.Errorf("after the wait for the replaced plugin: %s, untold %v", st.State, m.Untold("a"))
	}
}

// AwaitCatalog's error names each plugin once: the supervisor's own error
// already says which plugin cannot be waited for.
func TestAwaitCatalogNamesThePluginOnce(t *testing.T) {
	logs := &testparts.Buffer{}
	m := NewManager([]Spec{{Name: "slow", Path: testPlugin, StartTimeout: time.Hour,
		Env: []string{"PATH=" + os.Getenv("PATH"), "TESTPLUGIN_HANG_CONFIGURE=1"}}},
		ManagerOptions{Catalog: catalog.New(), Store: catalog.ManifestStore{Dir: t.TempDir()}, Policy: fast,
			Logger: hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Info})})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); m.Wait() })
	m.Run(ctx)
	waitLog(t, logs, "hanging in configure")
	// Any deadline ends the wait: the start hangs for an hour.
	wait, stop := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer stop()
	err := m.AwaitOwner(wait, "x_slow_echo")
	if err == nil || strings.Count(err.Error(), `plugin "slow"`) != 1 {
		t.Errorf("AwaitOwner of a plugin whose start hangs: %v, want one error naming the plugin once", err)
	}
}
