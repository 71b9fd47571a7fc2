package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Manager runs the supervisors of every configured plugin and connects them to
// the catalog: what a plugin serves is registered as it appears, and saved so a
// lazy plugin is searchable next time before it starts.
type Manager struct {
	catalog *catalog.Catalog
	store   catalog.ManifestStore
	log     hclog.Logger
	order   []string
	sups    map[string]*Supervisor
	// told is, per plugin, the manifest key (setup and binary) the
	// catalog's entry was learned under: a lazy plugin whose binary was
	// replaced since has yet to tell what it serves now.
	mu     sync.Mutex
	told   map[string]string
	events *ring
	notice func(plugin string, e protov1.Event)
	wg     sync.WaitGroup
}

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	Catalog    *catalog.Catalog
	Store      catalog.ManifestStore
	Policy     Policy
	Logger     hclog.Logger
	EventRing  int                                  // events kept for core_events (default 1000)
	OnEvent    func(Event)                          // every transition, after it is recorded
	OnNotice   func(plugin string, e protov1.Event) // plugin log lines and resource updates
	OnManifest func(plugin string, m *catalog.Manifest)
}

// NewManager builds a supervisor per spec; nothing runs until Run.
func NewManager(specs []Spec, opts ManagerOptions) *Manager {
	if opts.EventRing == 0 {
		opts.EventRing = 1000
	}
	m := &Manager{catalog: opts.Catalog, store: opts.Store, log: opts.Logger,
		sups: map[string]*Supervisor{}, told: map[string]string{}, events: newRing(opts.EventRing), notice: opts.OnNotice}
	for _, spec := range specs {
		name := spec.Name
		m.order = append(m.order, name)
		hooks := Hooks{
			Manifest: func(plugin string, man *catalog.Manifest) {
				key := manifestKey(spec)
				m.mu.Lock()
				m.told[plugin] = key
				m.mu.Unlock()
				m.catalog.Set(plugin, man)
				if err := m.store.Save(key, man); err != nil {
					m.log.Warn("could not save manifest", "plugin", plugin, "error", err)
				}
				if opts.OnManifest != nil {
					opts.OnManifest(plugin, man)
				}
			},
			Event: func(e Event) {
				m.events.add(e)
				if opts.OnEvent != nil {
					opts.OnEvent(e)
				}
			},
			Notice: opts.OnNotice,
		}
		m.sups[name] = New(spec, opts.Policy, hooks, opts.Logger)
	}
	return m
}

// Run starts every supervisor, indexes every plugin from its stored manifest
// (starting in the background the lazy ones with none), and returns at once.
// Everything stops when ctx ends; Wait waits for that.
func (m *Manager) Run(ctx context.Context) {
	for _, name := range m.order {
		s := m.sups[name]
		// Every plugin's tools are known from its last run before it starts,
		// so a call right after boot waits for the plugin instead of hearing
		// of no such tool; the running plugin's own list replaces this.
		key := manifestKey(s.spec)
		man, err := m.store.Load(key)
		if err != nil {
			m.log.Warn("stored manifest unusable", "plugin", name, "error", err)
		}
		if man != nil {
			m.mu.Lock()
			m.told[name] = key
			m.mu.Unlock()
			m.catalog.Set(name, man)
		}
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.Run(ctx)
		}()
		if !s.spec.AutoStart && !m.catalog.Known(name) {
			// Asked before Run returns, so the plugin is already starting
			// when the gateway answers its first request: nobody sees it
			// lazy with no tools and takes that for all there is.
			if err := s.Learn(ctx); err != nil && ctx.Err() == nil {
				m.log.Warn("could not start plugin to learn its tools", "plugin", name, "error", err)
			}
		}
	}
}

// AwaitCatalog starts the named plugins (every plugin when none is named)
// that have not yet told the catalog what they serve, because they are lazy
// with no stored manifest or still starting, and waits until they run or ctx
// ends. A request for a tool, prompt or resource that is not in the catalog
// calls it before answering that there is no such thing: right after the
// gateway starts, the thing may simply not be known yet. Plugins that failed,
// stopped or already told are not waited for, so the wait is short except
// in that first moment. The error joins the failed starts.
func (m *Manager) AwaitCatalog(ctx context.Context, names ...string) error {
	wait := m.untold(names)
	errs := make([]error, len(wait))
	var wg sync.WaitGroup
	for i, s := range wait {
		wg.Go(func() {
			err := s.Start(ctx)
			var unavailable *UnavailableError
			if err != nil && !errors.As(err, &unavailable) {
				// An UnavailableError names the plugin already.
				err = fmt.Errorf("plugin %q: %w", s.spec.Name, err)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Untold reports whether any of the named plugins (every plugin when none is
// named) is one AwaitCatalog would wait for: a caller can skip setting up a
// bounded wait when none is.
func (m *Manager) Untold(names ...string) bool { return len(m.untold(names)) > 0 }

// untold are the named plugins that have not told the catalog what they
// serve and are lazy or starting, or are lazy and were replaced by a new
// build since they told.
func (m *Manager) untold(names []string) []*Supervisor {
	if len(names) == 0 {
		names = m.order
	}
	var out []*Supervisor
	for _, name := range names {
		s, ok := m.sups[name]
		if !ok {
			continue
		}
		switch st := s.Status().State; {
		case st == Starting && !m.catalog.Known(name):
		case st == Lazy && (!m.catalog.Known(name) || m.replaced(s.spec)):
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// replaced reports whether a plugin's setup or binary changed since the
// catalog learned what it serves (a new build put in place of the old).
func (m *Manager) replaced(spec Spec) bool {
	m.mu.Lock()
	told := m.told[spec.Name]
	m.mu.Unlock()
	return told != manifestKey(spec)
}

// AwaitOwner is AwaitCatalog for whatever plugin may serve name: the one an
// x_<plugin>_ name is prefixed with, or every plugin for another name (a
// resource's URI says nothing of its plugin).
func (m *Manager) AwaitOwner(ctx context.Context, name string) error {
	if p, ok := catalog.PluginOf(name); ok {
		if _, ok := m.sups[p]; ok {
			return m.AwaitCatalog(ctx, p)
		}
	}
	return m.AwaitCatalog(ctx)
}

// Wait returns when every supervisor has stopped its plugin.
func (m *Manager) Wait() { m.wg.Wait() }

// Get returns one plugin's supervisor.
func (m *Manager) Get(name string) (*Supervisor, bool) {
	s, ok := m.sups[name]
	return s, ok
}

// Names lists the plugins in config order.
func (m *Manager) Names() []string { return append([]string(nil), m.order...) }

// Statuses lists every plugin's status in config order.
func (m *Manager) Statuses() []Status {
	out := make([]Status, len(m.order))
	for i, name := range m.order {
		out[i] = m.sups[name].Status()
	}
	return out
}

// Events returns the kept transitions, oldest first, optionally of one plugin.
func (m *Manager) Events(plugin string, limit int) []Event {
	return m.events.list(plugin, limit)
}

// ring keeps the last n events.
type ring struct {
	mu   sync.Mutex
	buf  []Event
	next int
	full bool
}

func newRing(n int) *ring { return &ring{buf: make([]Event, n)} }

func (r *ring) add(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf[r.next] = e
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

func (r *ring) list(plugin string, limit int) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []Event
	if r.full {
		all = append(all, r.buf[r.next:]...)
	}
	all = append(all, r.buf[:r.next]...)
	var out []Event
	for _, e := range all {
		if plugin == "" || e.Plugin == plugin {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

// manifestKey identifies a plugin's setup for the manifest store: its config,
// arguments and environment, whatever order the environment was given in, and
// its binary.
func manifestKey(spec Spec) string {
	env := slices.Clone(spec.Env)
	slices.Sort(env)
	setup, _ := json.Marshal(struct {
		Config json.RawMessage
		Args   []string
		Env    []string
	}{spec.Config, spec.Args, env})
	return catalog.ManifestKey(spec.Name, setup, spec.Path)
}

// ManifestKey is the key a plugin's manifest is stored under, for readers of
// the store outside a running gateway (config validate).
func ManifestKey(spec Spec) string { return manifestKey(spec) }
