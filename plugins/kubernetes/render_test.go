package kubernetes

import (
	"strings"
	"testing"
	"time"
)

func TestStrip(t *testing.T) {
	obj := map[string]any{"metadata": map[string]any{
		"name":          "web",
		"managedFields": []any{map[string]any{"manager": "kubectl"}},
		"selfLink":      "/apis/apps/v1/x",
		"annotations":   map[string]any{lastApplied: "{...}"},
	}}
	got := strip(obj, false)["metadata"].(map[string]any)
	if len(got) != 1 || got["name"] != "web" {
		t.Errorf("stripped metadata = %v, want only the name", got)
	}
	kept := strip(map[string]any{"metadata": map[string]any{"annotations": map[string]any{lastApplied: "x", "team": "a"}}}, false)
	if ann := kept["metadata"].(map[string]any)["annotations"].(map[string]any); len(ann) != 1 || ann["team"] != "a" {
		t.Errorf("annotations = %v, want only team", ann)
	}
}

func TestRenderTable(t *testing.T) {
	got := renderTable([]string{"NAME", "READY"}, [][]string{{"web-1", "1/1"}, {"a\tb\nc", "0/1"}})
	want := "NAME    READY\nweb-1   1/1\na b c   0/1"
	if got != want {
		t.Errorf("table =\n%s\nwant\n%s", got, want)
	}
}

func TestCell(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, "<none>"}, {"", "<none>"}, {"Running", "Running"}, {float64(3), "3"}, {1.5, "1.5"},
		{true, "true"}, {[]any{"a", float64(2)}, "a,2"},
	} {
		if got := cell(tc.in); got != tc.want {
			t.Errorf("cell(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDescriptionText(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := description{Kind: "Deployment", APIVersion: "apps/v1", Name: "web", Namespace: "shop", Created: now.Add(-5 * time.Minute),
		Labels: map[string]string{"b": "2", "a": "1"}, Owners: []string{"Thing/x (controller)"},
		Status:     []field{{"Replicas", "3 desired, 1 ready"}},
		Conditions: []condition{{Type: "Available", Status: "False", Reason: "MinimumReplicasUnavailable"}},
		Events:     []eventInfo{{Type: "Warning", Reason: "FailedCreate", Object: "Deployment/web", Message: "quota", LastSeen: now.Add(-time.Minute), Count: 4}}}
	text := d.text(now)
	for _, want := range []string{"Name:        web", "Namespace:   shop", "Deployment (apps/v1)", "5m ago", "a=1,b=2",
		"Owned by:    Thing/x (controller)", "Replicas:    3 desired, 1 ready", "MinimumReplicasUnavailable", "FailedCreate", "60s (x4)"} {
		if !strings.Contains(text, want) {
			t.Errorf("description lacks %q:\n%s", want, text)
		}
	}
}

// TestServiceEndpointsUnavailable: a failed endpoint lookup is reported once,
// not contradicted by "<none>".
func TestServiceEndpointsUnavailable(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := description{Kind: "Service", APIVersion: "v1", Name: "web", Created: now,
		Status: []field{{"Endpoints", "unavailable: forbidden"}}, Events: []eventInfo{}}
	text := d.text(now)
	if !strings.Contains(text, "Endpoints:   unavailable: forbidden") || strings.Contains(text, "<none> (no ready pod") {
		t.Errorf("description:\n%s", text)
	}
	d.Status = nil
	if text := d.text(now); !strings.Contains(text, "Endpoints:   <none> (no ready pod matches the selector)") {
		t.Errorf("description without endpoints:\n%s", text)
	}
}

// TestEventsUnavailable: a failed event lookup is reported once, not
// contradicted by "Events: <none>".
func TestEventsUnavailable(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := description{Kind: "ConfigMap", APIVersion: "v1", Name: "cfg", Created: now,
		Status: []field{{"Events", "unavailable: forbidden"}}, Events: []eventInfo{}}
	text := d.text(now)
	if !strings.Contains(text, "Events:      unavailable: forbidden") || strings.Contains(text, "Events:      <none>") {
		t.Errorf("description:\n%s", text)
	}
}
