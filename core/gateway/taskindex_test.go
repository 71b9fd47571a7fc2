package gateway

import (
	"fmt"
	"testing"
	"time"
)

// TestTaskIndexKeepsOthersTasks: one principal creating tasks without end
// makes room among its own, never by dropping another's, which would cost
// that principal its tasks/list entries, status notices and the requests
// its tasks ask.
func TestTaskIndexKeepsOthersTasks(t *testing.T) {
	alice, bob := Principal{Issuer: "token", Subject: "0"}, Principal{Issuer: "token", Subject: "1"}
	var ix taskIndex
	now := time.Now()
	bobs := taskRef{Plugin: "p", ID: "bob"}
	ix.add("bob-task", indexedTask{owner: bob, ref: bobs, expires: now.Add(time.Hour)})
	for i := range maxIndexedTasks {
		ix.add(fmt.Sprintf("alice-%d", i), indexedTask{owner: alice, ref: taskRef{Plugin: "p", ID: fmt.Sprint(i)}, expires: now.Add(2 * time.Hour)})
	}
	if _, _, ok := ix.find(bobs); !ok {
		t.Fatal("bob's task was dropped to make room for alice's")
	}
	if got := ix.of(bob); len(got) != 1 {
		t.Errorf("bob's tasks %v, want his one", got)
	}
	if got := len(ix.of(alice)); got != maxTasksPerPrincipal {
		t.Errorf("alice holds %d tasks in the index, want her share %d", got, maxTasksPerPrincipal)
	}
	// The newest of hers are kept.
	if _, _, ok := ix.find(taskRef{Plugin: "p", ID: fmt.Sprint(maxIndexedTasks - 1)}); !ok {
		t.Error("alice's newest task was dropped")
	}
}
