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

func (ix *taskIndex) add(id string, t indexedTask) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.tasks == nil {
		ix.tasks, ix.byRef = map[string]indexedTask{}, map[taskRef]string{}
	}
	if len(ix.tasks) >= maxIndexedTasks {
		ix.evict(time.Now())
	}
	ix.tasks[id] = t
	ix.byRef[t.ref] = id
}

// remove drops id; the caller holds mu.
func (ix *taskIndex) remove(id string) {
	if t, ok := ix.tasks[id]; ok {
		delete(ix.byRef, t.ref)
		delete(ix.tasks, id)
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

// evict drops the expired tasks, and if none had expired, the one that
// expires first.
func (ix *taskIndex) evict(now time.Time) {
	first := ""
	for id, t := range ix.tasks {
		if !t.expires.IsZero() && now.After(t.expires) {
			ix.remove(id)
			continue
		}
		if first == "" || t.expires.Before(ix.tasks[first].expires) {
			first = id
		}
	}
	if len(ix.tasks) >= maxIndexedTasks {
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
