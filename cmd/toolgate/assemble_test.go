package main

import (
	"testing"

	"github.com/toolgate/toolgate/core/catalog"
	"github.com/toolgate/toolgate/core/config"
	"github.com/toolgate/toolgate/sdk/pluginhost"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// Sessions hear of a catalog change only when tools came, went or
// collided: a plugin whose prompts or resources changed but whose tools
// did not is told by the list_changed notifications, and is no news here.
func TestCatalogChangeNote(t *testing.T) {
	cat := catalog.New()
	var notes []map[string]any
	cat.OnChange(func(c catalog.Change) {
		if note, ok := catalogChangeNote(c); ok {
			notes = append(notes, note)
		}
	})
	m := &catalog.Manifest{Tools: []protov1.Tool{{Name: "greet"}, {Name: "echo"}}}
	cat.Set("hello", m)
	if len(notes) != 1 || notes[0]["added"] != 2 || notes[0]["removed"] != 0 {
		t.Fatalf("first start told %v, want one note of 2 tools added", notes)
	}
	cat.Set("hello", &catalog.Manifest{Tools: []protov1.Tool{{Name: "greet"}, {Name: "echo"}},
		Prompts: []protov1.Prompt{{Name: "welcome"}}})
	if len(notes) != 1 {
		t.Fatalf("a start with the same tools and a new prompt told %v", notes[1:])
	}
	cat.Set("hello", &catalog.Manifest{Tools: []protov1.Tool{{Name: "greet"}}})
	if len(notes) != 2 || notes[1]["removed"] != 1 {
		t.Fatalf("a start with a tool fewer told %v, want a note of 1 removed", notes[1:])
	}
	cat.Set("other", &catalog.Manifest{Tools: []protov1.Tool{{Name: "a"}, {Name: "a"}}})
	if len(notes) != 3 || notes[2]["collisions"] == nil {
		t.Fatalf("a collision told %v, want a note naming it", notes[2:])
	}
}

// The largest request the gateway may be told to take must fit, arguments
// and all, in one message to a plugin.
func TestMaxRequestBytesFitsAPluginMessage(t *testing.T) {
	if config.MaxRequestBytesLimit >= pluginhost.MaxMessage {
		t.Fatalf("max_request_bytes may be %d, but a plugin message carries at most %d", config.MaxRequestBytesLimit, pluginhost.MaxMessage)
	}
}
