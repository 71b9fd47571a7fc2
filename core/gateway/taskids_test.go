package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/protov1"
)

func taskServer(t *testing.T, key string) *Server {
	t.Helper()
	return &Server{stateKeys: [][]byte{[]byte(key)}}
}

func TestTaskIDRoutesOnlyForItsPrincipal(t *testing.T) {
	s := taskServer(t, strings.Repeat("k", 32))
	alice := Principal{Issuer: "token", Subject: "0"}
	bob := Principal{Issuer: "token", Subject: "1"}
	h, err := newTaskHandle(taskRef{Plugin: "everything", ID: "4f0c-..:./weird id"}, "2026-01-01T00:00:00.123Z")
	if err != nil {
		t.Fatal(err)
	}
	id := s.encodeTaskID(alice, h)

	if got, ok := s.decodeTaskID(alice, id); !ok || got != h {
		t.Fatalf("decode for the creator = %+v, %v; want %+v", got, ok, h)
	}
	again, err := newTaskHandle(h.taskRef, h.Created)
	if err != nil {
		t.Fatal(err)
	}
	if s.encodeTaskID(alice, again) == id {
		t.Error("two creations of one plugin task at one time got the same id")
	}
	other := taskServer(t, strings.Repeat("x", 32))
	for name, decode := range map[string]func() (taskHandle, bool){
		"another principal":     func() (taskHandle, bool) { return s.decodeTaskID(bob, id) },
		"the anonymous caller":  func() (taskHandle, bool) { return s.decodeTaskID(Principal{}, id) },
		"another key":           func() (taskHandle, bool) { return other.decodeTaskID(alice, id) },
		"another plugin's name": func() (taskHandle, bool) { return s.decodeTaskID(alice, swapPart(id, 0, "aGVsbG8")) },
		"another task's id":     func() (taskHandle, bool) { return s.decodeTaskID(alice, swapPart(id, 1, "eA")) },
		"another creation time": func() (taskHandle, bool) { return s.decodeTaskID(alice, swapPart(id, 2, "eA")) },
		"another nonce":         func() (taskHandle, bool) { return s.decodeTaskID(alice, swapPart(id, 3, "eA")) },
	} {
		if got, ok := decode(); ok {
			t.Errorf("%s: decoded to %+v; want refused", name, got)
		}
	}
}

// swapPart replaces one dot-separated part after the prefix.
func swapPart(id string, i int, with string) string {
	parts := strings.Split(strings.TrimPrefix(id, taskIDPrefix), ".")
	parts[i] = with
	return taskIDPrefix + strings.Join(parts, ".")
}

func TestTaskIDRefusesMalformed(t *testing.T) {
	s := taskServer(t, strings.Repeat("k", 32))
	for _, id := range []string{"", "tg2.", "tg2.....", "tg2.a.b.c.d", "tg2.a.b.c.d.e.f", "tg1.ZQ.ZQ.ZQ", "tg2.!!.ZQ.ZQ.ZQ.ZQ", "plain-task-id"} {
		if got, ok := s.decodeTaskID(Principal{}, id); ok {
			t.Errorf("decodeTaskID(%q) = %+v; want refused", id, got)
		}
	}
}

func FuzzDecodeTaskID(f *testing.F) {
	s := &Server{stateKeys: [][]byte{[]byte(strings.Repeat("k", 32))}}
	f.Add(s.encodeTaskID(Principal{}, taskHandle{taskRef: taskRef{Plugin: "p", ID: "t"}, Created: "c", Nonce: "n"}))
	f.Add("tg2.a.b.c.d.e")
	f.Add("")
	f.Fuzz(func(t *testing.T, id string) {
		h, ok := s.decodeTaskID(Principal{}, id)
		if ok && s.encodeTaskID(Principal{}, h) != id {
			t.Fatalf("%q decoded to %+v, which encodes differently", id, h)
		}
	})
}

// noTasks is a TaskRunner for option checks; it runs nothing.
type noTasks struct{}

func (noTasks) StartTask(context.Context, json.RawMessage, *int64, *protov1.PeerCapabilities) (string, protov1.Task, error) {
	return "", protov1.Task{}, protov1.InvalidArgumentf("no tasks here")
}
func (noTasks) GetTask(context.Context, string, string) (protov1.Task, error) {
	return protov1.Task{}, protov1.ErrNotFound
}
func (noTasks) TaskResult(context.Context, string, string) (*protov1.Result, error) {
	return nil, protov1.ErrNotFound
}
func (noTasks) CancelTask(context.Context, string, string) (protov1.Task, error) {
	return protov1.Task{}, protov1.ErrNotFound
}
func (noTasks) AnswerTaskInput(context.Context, string, string, string, json.RawMessage, *protov1.PeerError) error {
	return protov1.ErrNotFound
}
