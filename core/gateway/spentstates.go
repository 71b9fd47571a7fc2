package gateway

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A requestState whose answers accept an elicitation — the gateway's own
// confirmation of a tool that may delete data, or a backend's question —
// carries a user's yes to one run of one call. Its signature cannot tell a
// first use from a second, so the replica that runs the call remembers the
// state's id until the state expires, and refuses it from then on. When the
// record is full the retry is refused: dropping an id before its state
// expires would let that state run its call again.

// maxSpentStates bounds the ids one gateway remembers (about 110 bytes
// each).
const maxSpentStates = 100_000

// errStateSpent is wrapped by the refusal of a state whose accepted answer
// already ran its call.
var errStateSpent = errors.New("its confirmation was already used to run this call")

// spentFullError refuses a state the record has no room for.
type spentFullError struct {
	// Held is how many states the record (or the principal's share of it)
	// holds; Principal says which limit was reached.
	Held      int
	Principal bool
	// Until is when the first of them expires and frees its place.
	Until time.Time
}

func (e *spentFullError) Error() string {
	whose := "this gateway holds"
	if e.Principal {
		whose = "your principal has"
	}
	return fmt.Sprintf("%s %d confirmations used within their requestState's lifetime, as many as it keeps; "+
		"it runs no more until the first of them expires at %s", whose, e.Held, e.Until.UTC().Format(time.RFC3339))
}

// spentStates remembers the ids of the states that ran their call, each
// until its state expires. One principal may hold its share of it
// (principalshares.go), so one client cannot use up what every other
// needs.
type spentStates struct {
	max int

	mu       sync.Mutex
	ids      map[stateID]struct{}
	byExpiry spentHeap
	held     principalShares
}

// stateID is an inputState's ID, decoded: half the size of its text.
type stateID [16]byte

// newSpentStates remembers up to limit ids, share of them used by one
// principal.
func newSpentStates(limit, share int) *spentStates {
	return &spentStates{max: limit, ids: map[stateID]struct{}{}, held: newPrincipalShares(share)}
}

// spend records the state id, good until the unix second expires, as used
// by who. It fails with errStateSpent when id was used already, and with a
// *spentFullError when there is no room for it.
func (ss *spentStates) spend(id stateID, expires int64, who Principal, now time.Time) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.expire(now)
	if _, ok := ss.ids[id]; ok {
		return errStateSpent
	}
	switch {
	case ss.held.full(who, 0):
		return &spentFullError{Held: ss.held.of(who), Principal: true, Until: ss.firstOf(who)}
	case len(ss.ids) >= ss.max:
		return &spentFullError{Held: len(ss.ids), Until: time.Unix(ss.byExpiry[0].expires+1, 0)}
	}
	ss.ids[id] = struct{}{}
	ss.held.take(who)
	heap.Push(&ss.byExpiry, spent{id: id, expires: expires, of: who})
	return nil
}

// expire forgets the states that expired: openState refuses them anyway.
// The caller holds mu.
func (ss *spentStates) expire(now time.Time) {
	for len(ss.byExpiry) > 0 && now.Unix() > ss.byExpiry[0].expires {
		s := heap.Pop(&ss.byExpiry).(spent)
		delete(ss.ids, s.id)
		ss.held.give(s.of)
	}
}

// firstOf is when the first state of who frees its place; the caller
// holds mu. Only a full principal's refusal asks, so a linear walk is rare.
func (ss *spentStates) firstOf(who Principal) time.Time {
	first := int64(0)
	for _, s := range ss.byExpiry {
		if s.of == who && (first == 0 || s.expires < first) {
			first = s.expires
		}
	}
	return time.Unix(first+1, 0)
}

// len is how many states are remembered.
func (ss *spentStates) len() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.ids)
}

type spent struct {
	id      stateID
	expires int64
	of      Principal
}

// spentHeap orders spent states by expiry, the first to expire on top.
type spentHeap []spent

func (h spentHeap) Len() int           { return len(h) }
func (h spentHeap) Less(i, j int) bool { return h[i].expires < h[j].expires }
func (h spentHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *spentHeap) Push(x any)        { *h = append(*h, x.(spent)) }
func (h *spentHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	*h = old[:len(old)-1]
	return s
}

// acceptsElicitation reports whether one of answers is an elicitation
// result that accepts.
func acceptsElicitation(answers map[string]json.RawMessage) bool {
	for _, a := range answers {
		var r struct {
			Action string `json:"action"`
		}
		if json.Unmarshal(a, &r) == nil && r.Action == "accept" {
			return true
		}
	}
	return false
}
