package gateway

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func note(i int) mcp.JSONRPCNotification {
	return notification("test/note", map[string]any{"i": i})
}

func noteIndex(t *testing.T, n mcp.JSONRPCNotification) int {
	t.Helper()
	i, ok := n.Params.AdditionalFields["i"].(int)
	if !ok {
		t.Fatalf("notification %v has no index", n)
	}
	return i
}

// sendLikeMCPGo sends n as mcp-go does: a non-blocking send on the channel
// NotificationChannel gives at that moment.
func sendLikeMCPGo(se *session, n mcp.JSONRPCNotification) bool {
	select {
	case se.NotificationChannel() <- n:
		return true
	default:
		return false
	}
}

func TestNoteQueueKeepsOrderAcrossSenders(t *testing.T) {
	se := &session{}
	se.notes.init(notesBuffer)
	for i := range 10 {
		var ok bool
		if i%3 == 0 {
			ok = sendLikeMCPGo(se, note(i))
		} else {
			ok = se.notes.push(note(i))
		}
		if !ok {
			t.Fatalf("notification %d refused by an empty queue", i)
		}
	}
	for want := range 10 {
		select {
		case <-se.notes.ready():
		default:
			t.Fatalf("no token while notification %d waits", want)
		}
		n, ok := se.notes.next()
		if !ok {
			t.Fatalf("notification %d missing", want)
		}
		if got := noteIndex(t, n); got != want {
			t.Fatalf("notification %d came in place %d", got, want)
		}
	}
	if _, ok := se.notes.next(); ok {
		t.Fatal("a notification beyond those sent")
	}
	if se.notes.pending != nil {
		t.Fatalf("drained queue keeps storage of %d", cap(se.notes.pending))
	}
}

func TestNoteQueueDropsBeyondLimit(t *testing.T) {
	se := &session{}
	se.notes.init(3)
	for i := range 3 {
		if !se.notes.push(note(i)) {
			t.Fatalf("notification %d refused below the limit", i)
		}
	}
	if se.notes.push(note(3)) {
		t.Fatal("push beyond the limit accepted")
	}
	if sendLikeMCPGo(se, note(4)) {
		t.Fatal("mcp-go send beyond the limit accepted")
	}
	if n, _ := se.notes.next(); noteIndex(t, n) != 0 {
		t.Fatalf("first out is %v", n)
	}
	// Room again after the reader took one, and it goes last.
	if !sendLikeMCPGo(se, note(5)) {
		t.Fatal("mcp-go send refused with room")
	}
	var got []int
	for n, ok := se.notes.next(); ok; n, ok = se.notes.next() {
		got = append(got, noteIndex(t, n))
	}
	if fmt.Sprint(got) != "[1 2 5]" {
		t.Fatalf("got %v, want [1 2 5]", got)
	}
}

func TestNoteQueueWithoutRoomRefusesAll(t *testing.T) {
	se := &session{}
	se.notes.init(0)
	if se.notes.push(note(0)) || sendLikeMCPGo(se, note(1)) {
		t.Fatal("a queue of no room accepted a notification")
	}
}

// Concurrent senders and one reader: every notification accepted arrives
// once, and each sender's own notifications arrive in the order it sent them.
func TestNoteQueueConcurrent(t *testing.T) {
	se := &session{}
	se.notes.init(notesBuffer)
	const senders, each = 4, 500
	var accepted [senders]int
	var wg sync.WaitGroup
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				n := note(s*each + i)
				ok := false
				if i%2 == 0 {
					ok = se.notes.push(n)
				} else {
					ok = sendLikeMCPGo(se, n)
				}
				if ok {
					accepted[s]++
				}
			}
		}()
	}
	sent := make(chan struct{})
	go func() { wg.Wait(); close(sent) }()
	last := [senders]int{-1, -1, -1, -1}
	var got [senders]int
	read := func(n mcp.JSONRPCNotification) {
		i := noteIndex(t, n)
		s := i / each
		if i <= last[s] {
			t.Errorf("sender %d: %d after %d", s, i, last[s])
		}
		last[s] = i
		got[s]++
	}
	for done := false; !done; {
		select {
		case <-se.notes.ready():
			if n, ok := se.notes.next(); ok {
				read(n)
			}
		case <-sent:
			for n, ok := se.notes.next(); ok; n, ok = se.notes.next() {
				read(n)
			}
			done = true
		}
	}
	if got != accepted {
		t.Fatalf("read %v, accepted %v", got, accepted)
	}
}

// mcp-go's own sends and the gateway's pushes reach the reader in the order
// they were made, through mcp-go's real send path.
func TestNoteQueueOrderWithMCPGo(t *testing.T) {
	f := newFixture(t, nil)
	se, err := f.srv.newSession(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer f.srv.dropSession(se)
	se.Initialize()
	for i := range 20 {
		if i%2 == 0 {
			if err := f.srv.mcp.SendNotificationToSpecificClient(se.id, "test/note", map[string]any{"i": i}); err != nil {
				t.Fatalf("mcp-go send %d: %v", i, err)
			}
		} else if !se.notes.push(note(i)) {
			t.Fatalf("push %d refused", i)
		}
	}
	for want := range 20 {
		n, ok := se.notes.next()
		if !ok {
			t.Fatalf("notification %d missing", want)
		}
		if got := noteIndex(t, n); got != want || n.Method != "test/note" {
			t.Fatalf("place %d holds %s %d", want, n.Method, got)
		}
	}
}
