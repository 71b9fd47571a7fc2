package gateway

import (
	"sort"
	"sync"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// taskIndex remembers the tasks this process created, by the id clients
// see, so tasks/list can answer a principal with theirs, and bounds the
// tasks one principal holds in the plugins. Routing never needs it: any
// replica with the key serves get, result and cancel.
type taskIndex struct {
	mu    sync.Mutex
	tasks map[string]indexedTask
	// byRef finds the id of the latest creation of a plugin's task, for its
	// status notices and to tell an id issued before the plugin gave its
	// task id again.
	byRef map[taskRef]string
	// held counts each principal's tasks against its share; pending, those
	// being created.
	held    principalShares
	pending map[Principal]int
	// lost are the tasks whose plugin process ended (tasklost.go); ends
	// counts the ends, and ended holds each plugin's last.
	lost  map[string]lostTask
	ends  uint64
	ended map[string]pluginEnd
}

type indexedTask struct {
	owner  Principal
	handle taskHandle
	// session created the task and hears of its status ("" for none).
	session string
	expires time.Time // zero: no ttl
	ttlMs   *int64
	// last is the task as the gateway last learnt it from its plugin: made,
	// told by a status notice, answered to tasks/get or tasks/cancel. Once
	// its process ends it is all the gateway knows of the task
	// (tasklost.go).
	last protov1.Task
}

// maxIndexedTasks bounds the index, so a client cannot grow it without end.
const maxIndexedTasks = 10000

// init readies the index; share is how many of the tasks the plugins
// still hold one principal may have created: past it, a new task of theirs
// is refused until one of theirs expires or is gone, so that no principal
// fills the plugins (nor the index, whose entries the others would lose
// from tasks/list, and their status notices and requests with them).
func (ix *taskIndex) init(share int) {
	ix.tasks, ix.byRef = map[string]indexedTask{}, map[taskRef]string{}
	ix.held, ix.pending = newPrincipalShares(share), map[Principal]int{}
	ix.lost, ix.ended = map[string]lostTask{}, map[string]pluginEnd{}
}

// reserve takes a place for a task who is about to create; false when who
// holds its share already. add or unreserve gives it back.
func (ix *taskIndex) reserve(who Principal) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.held.full(who, ix.pending[who]) {
		ix.dropExpired(time.Now(), func(t indexedTask) bool { return t.owner == who })
		if ix.held.full(who, ix.pending[who]) {
			return false
		}
	}
	ix.pending[who]++
	return true
}

// unreserve gives back a place reserve took for a task not made.
func (ix *taskIndex) unreserve(who Principal) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.release(who)
}

// release ends a reservation; the caller holds mu.
func (ix *taskIndex) release(who Principal) {
	if ix.pending[who]--; ix.pending[who] <= 0 {
		delete(ix.pending, who)
	}
}

// add records a task made in the place reserve took. An earlier creation
// of the same plugin task is dropped: the plugin gave its id again, so
// that task is gone and its id must reach nothing.
func (ix *taskIndex) add(id string, t indexedTask) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.release(t.owner)
	ix.remove(id)
	if older, ok := ix.byRef[t.handle.taskRef]; ok {
		ix.remove(older)
	}
	switch {
	case ix.held.of(t.owner) > 0 && len(ix.tasks) >= maxIndexedTasks:
		ix.evict(time.Now(), func(o indexedTask) bool { return o.owner == t.owner })
	case len(ix.tasks) >= maxIndexedTasks:
		ix.evict(time.Now(), func(indexedTask) bool { return true })
	}
	ix.tasks[id] = t
	ix.byRef[t.handle.taskRef] = id
	ix.held.take(t.owner)
}

// saw records t as the latest state the plugin reported of the task id
// names. A terminal state is kept: MCP lets no task leave one, so a report
// that crossed it on the way is stale.
func (ix *taskIndex) saw(id string, t protov1.Task) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	e, ok := ix.tasks[id]
	if !ok || terminal(e.last.Status) {
		return
	}
	e.last = t
	ix.tasks[id] = e
}

// remove drops id; the caller holds mu.
func (ix *taskIndex) remove(id string) {
	t, ok := ix.tasks[id]
	if !ok {
		return
	}
	if ix.byRef[t.handle.taskRef] == id {
		delete(ix.byRef, t.handle.taskRef)
	}
	delete(ix.tasks, id)
	ix.held.give(t.owner)
}

// find returns the id and entry of the latest creation of a plugin's task.
func (ix *taskIndex) find(ref taskRef) (string, indexedTask, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	id, ok := ix.byRef[ref]
	if !ok {
		return "", indexedTask{}, false
	}
	return id, ix.tasks[id], true
}

// superseded reports whether this process made the task h names again
// since it issued id: the plugin gave the same task id to a later creation.
func (ix *taskIndex) superseded(id string, h taskHandle) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	latest, ok := ix.byRef[h.taskRef]
	return ok && latest != id
}

// dropExpired drops the expired tasks; it reports whether any of them was
// one may allows. The caller holds mu.
func (ix *taskIndex) dropExpired(now time.Time, may func(indexedTask) bool) bool {
	freed := false
	for id, t := range ix.tasks {
		if !t.expires.IsZero() && now.After(t.expires) {
			freed = freed || may(t)
			ix.remove(id)
		}
	}
	return freed
}

// evict drops the expired tasks, and if none of those it may drop had
// expired, the one of them that expires first (one without a ttl before
// any other).
func (ix *taskIndex) evict(now time.Time, may func(indexedTask) bool) {
	if ix.dropExpired(now, may) {
		return
	}
	first := ""
	for id, t := range ix.tasks {
		if may(t) && (first == "" || t.expires.Before(ix.tasks[first].expires)) {
			first = id
		}
	}
	ix.remove(first)
}

func (ix *taskIndex) drop(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.remove(id)
}

// of returns who's tasks that have not expired, by id, the lost with them.
func (ix *taskIndex) of(who Principal) []string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	now := time.Now()
	var ids []string
	for id, t := range ix.tasks {
		if !t.expires.IsZero() && now.After(t.expires) {
			ix.remove(id)
			continue
		}
		if t.owner == who {
			ids = append(ids, id)
		}
	}
	for id, l := range ix.lost {
		if !l.expires.IsZero() && now.After(l.expires) {
			delete(ix.lost, id)
			continue
		}
		if l.owner == who {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}
