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
	ref := taskRef{Plugin: "everything", ID: "4f0c-..:./weird id"}
	id := s.encodeTaskID(alice, ref)

	if got, ok := s.decodeTaskID(alice, id); !ok || got != ref {
		t.Fatalf("decode for the creator = %+v, %v; want %+v", got, ok, ref)
	}
	other := taskServer(t, strings.Repeat("x", 32))
	for name, decode := range map[string]func() (taskRef, bool){
		"another principal":     func() (taskRef, bool) { return s.decodeTaskID(bob, id) },
		"the anonymous caller":  func() (taskRef, bool) { return s.decodeTaskID(Principal{}, id) },
		"another key":           func() (taskRef, bool) { return other.decodeTaskID(alice, id) },
		"another plugin's name": func() (taskRef, bool) { return s.decodeTaskID(alice, swapPart(id, 0, "aGVsbG8")) },
		"another task's id":     func() (taskRef, bool) { return s.decodeTaskID(alice, swapPart(id, 1, "eA")) },
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
	for _, id := range []string{"", "tg1.", "tg1...", "tg1.a.b", "tg1.a.b.c.d", "tg2.ZQ.ZQ.ZQ", "tg1.!!.ZQ.ZQ", "plain-task-id"} {
		if got, ok := s.decodeTaskID(Principal{}, id); ok {
			t.Errorf("decodeTaskID(%q) = %+v; want refused", id, got)
		}
	}
}

func FuzzDecodeTaskID(f *testing.F) {
	s := &Server{stateKeys: [][]byte{[]byte(strings.Repeat("k", 32))}}
	f.Add(s.encodeTaskID(Principal{}, taskRef{Plugin: "p", ID: "t"}))
	f.Add("tg1.a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, id string) {
		ref, ok := s.decodeTaskID(Principal{}, id)
		if ok && s.encodeTaskID(Principal{}, ref) != id {
			t.Fatalf("%q decoded to %+v, which encodes differently", id, ref)
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
