package gateway

import (
	"sort"
	"sync"
	"time"
)

// taskIndex remembers the tasks this process created, by the id clients
// see, so tasks/list can answer a principal with theirs. Routing never
// needs it: any replica with the key serves get, result and cancel.
type taskIndex struct {
	mu    sync.Mutex
	tasks map[string]indexedTask
	// byRef finds the id a plugin's task was given, for its status notices.
	byRef map[taskRef]string
	// held counts each principal's tasks.
	held map[Principal]int
}

type indexedTask struct {
	owner Principal
	ref   taskRef
	// session created the task and hears of its status ("" for none).
	session string
	expires time.Time // zero: no ttl
}

// maxIndexedTasks bounds the index, so a client cannot grow it without end.
const maxIndexedTasks = 10000

// maxTasksPerPrincipal is one principal's share of the index: past it, a
// new task of theirs takes the place of one of their own, so that no
// principal's tasks push another's out (who would lose them from
// tasks/list, and their status notices and requests with them).
const maxTasksPerPrincipal = maxIndexedTasks / 10

func (ix *taskIndex) add(id string, t indexedTask) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.tasks == nil {
		ix.tasks, ix.byRef, ix.held = map[string]indexedTask{}, map[taskRef]string{}, map[Principal]int{}
	}
	ix.remove(id)
	switch own := ix.held[t.owner]; {
	case own >= maxTasksPerPrincipal, own > 0 && len(ix.tasks) >= maxIndexedTasks:
		ix.evict(time.Now(), func(o indexedTask) bool { return o.owner == t.owner })
	case len(ix.tasks) >= maxIndexedTasks:
		ix.evict(time.Now(), func(indexedTask) bool { return true })
	}
	ix.tasks[id] = t
	ix.byRef[t.ref] = id
	ix.held[t.owner]++
}

// remove drops id; the caller holds mu.
func (ix *taskIndex) remove(id string) {
	if t, ok := ix.tasks[id]; ok {
		delete(ix.byRef, t.ref)
		delete(ix.tasks, id)
		if ix.held[t.owner]--; ix.held[t.owner] == 0 {
			delete(ix.held, t.owner)
		}
	}
}

// find returns the id and entry of a plugin's task.
func (ix *taskIndex) find(ref taskRef) (string, indexedTask, bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	id, ok := ix.byRef[ref]
	if !ok {
		return "", indexedTask{}, false
	}
	return id, ix.tasks[id], true
}

// evict drops the expired tasks, and if none of those it may drop had
// expired, the one of them that expires first (one without a ttl before
// any other).
func (ix *taskIndex) evict(now time.Time, may func(indexedTask) bool) {
	first, freed := "", false
	for id, t := range ix.tasks {
		if !t.expires.IsZero() && now.After(t.expires) {
			freed = freed || may(t)
			ix.remove(id)
			continue
		}
		if may(t) && (first == "" || t.expires.Before(ix.tasks[first].expires)) {
			first = id
		}
	}
	if !freed {
		ix.remove(first)
	}
}

func (ix *taskIndex) drop(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.remove(id)
}

// of returns who's tasks that have not expired, by id.
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
	sort.Strings(ids)
	return ids
}
