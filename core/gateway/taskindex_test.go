package gateway

import (
	"fmt"
	"testing"
	"time"
)

func indexed(who Principal, id string, expires time.Time) indexedTask {
	return indexedTask{owner: who, handle: taskHandle{taskRef: taskRef{Plugin: "p", ID: id}}, expires: expires}
}

// TestTaskIndexCapsEachPrincipal: one principal creating tasks without end
// is refused past its share, never making room by dropping another's, and
// a place comes back once one of its tasks expires.
func TestTaskIndexCapsEachPrincipal(t *testing.T) {
	alice, bob := Principal{Issuer: "token", Subject: "0"}, Principal{Issuer: "token", Subject: "1"}
	var ix taskIndex
	ix.init(maxTasksPerPrincipal)
	now := time.Now()
	if !ix.reserve(bob) {
		t.Fatal("bob's first task refused")
	}
	ix.add("bob-task", indexed(bob, "bob", now.Add(time.Hour)))
	made := 0
	for i := range maxIndexedTasks {
		if !ix.reserve(alice) {
			break
		}
		ix.add(fmt.Sprintf("alice-%d", i), indexed(alice, fmt.Sprint(i), now.Add(2*time.Hour)))
		made++
	}
	if made != maxTasksPerPrincipal {
		t.Fatalf("alice made %d tasks, want her share %d", made, maxTasksPerPrincipal)
	}
	if _, _, ok := ix.find(taskRef{Plugin: "p", ID: "bob"}); !ok || len(ix.of(bob)) != 1 {
		t.Fatal("bob's task was dropped to make room for alice's")
	}
	if !ix.reserve(bob) {
		t.Fatal("bob refused while alice holds her share")
	}
	ix.unreserve(bob)
	// Her first task expires: its place is hers again.
	first := ix.tasks["alice-0"]
	first.expires = now.Add(-time.Second)
	ix.tasks["alice-0"] = first
	if !ix.reserve(alice) {
		t.Fatal("alice still refused after one of her tasks expired")
	}
}

// TestTaskIndexForgetsReplacedTasks: a plugin that gives a task id again
// replaces the earlier creation, whose id is superseded.
func TestTaskIndexForgetsReplacedTasks(t *testing.T) {
	alice, bob := Principal{Issuer: "token", Subject: "0"}, Principal{Issuer: "token", Subject: "1"}
	var ix taskIndex
	ix.init(maxTasksPerPrincipal)
	old, newer := indexed(alice, "t1", time.Time{}), indexed(bob, "t1", time.Time{})
	ix.reserve(alice)
	ix.add("alice-id", old)
	ix.reserve(bob)
	ix.add("bob-id", newer)
	if !ix.superseded("alice-id", old.handle) || ix.superseded("bob-id", newer.handle) {
		t.Error("alice's id of the replaced task is not superseded, or bob's is")
	}
	if id, e, ok := ix.find(old.handle.taskRef); !ok || id != "bob-id" || e.owner != bob {
		t.Errorf("the plugin's task t1 is indexed as %q of %+v, want bob's", id, e.owner)
	}
	if got := ix.of(alice); len(got) != 0 {
		t.Errorf("alice still lists %v", got)
	}
	// Dropping the replaced id leaves the newer one.
	ix.drop("alice-id")
	if _, _, ok := ix.find(old.handle.taskRef); !ok {
		t.Error("dropping alice's replaced id lost bob's task")
	}
}
