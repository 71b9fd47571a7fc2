package supervisor

import (
	"context"
	"testing"
	"time"

	"github.com/toolgate/toolgate/sdk/protov1"
)

// ttlRunner creates tasks with the ttl it was given.
type ttlRunner struct {
	protov1.TaskRunner
	ttl *int64
}

func (r ttlRunner) CreateTask(context.Context, *protov1.CallRequest, *int64) (protov1.Task, error) {
	return protov1.Task{ID: "t", Status: protov1.TaskWorking, TTLMs: r.ttl}, nil
}

func TestTaskHoldCoversTheLongestTTL(t *testing.T) {
	s := &Supervisor{}
	create := func(ttl *int64) {
		t.Helper()
		if _, err := (holdingRunner{TaskRunner: ttlRunner{ttl: ttl}, s: s}).CreateTask(context.Background(), &protov1.CallRequest{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	ms := func(n int64) *int64 { return &n }
	heldFor := func() time.Duration { return time.Until(time.Unix(0, s.taskHold.Load())) }

	create(ms(60_000))
	if d := heldFor(); d < 59*time.Second || d > time.Minute {
		t.Fatalf("held for %s after a task of ttl 60s", d)
	}
	create(ms(1_000))
	if d := heldFor(); d < 59*time.Second {
		t.Fatalf("a shorter task shortened the hold to %s", d)
	}
	create(nil)
	if d := heldFor(); d < DefaultTaskHold-time.Second {
		t.Fatalf("held for %s after a task with no ttl; want %s", d, DefaultTaskHold)
	}
}
