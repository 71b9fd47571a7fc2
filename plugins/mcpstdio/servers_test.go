package mcpstdio_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// A 1×1 PNG, to check binary files arrive byte for byte.
var pixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

func TestFilesystemServer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pixel.png"), pixel, 0o644); err != nil {
		t.Fatal(err)
	}
	h := start(t, map[string]any{"command": testparts.NodeBin(t, "mcp-server-filesystem"), "args": []string{dir}})

	tools, err := h.host.ListTools(context.Background())
	if err != nil || len(tools) != 14 {
		t.Fatalf("tools: %v, %v; want 14", toolNames(tools), err)
	}
	if res := h.call(t, "read_text_file", map[string]any{"path": filepath.Join(dir, "notes.txt")}); res.IsError || textOf(res) != "line one\nline two\n" {
		t.Errorf("read_text_file = %+v", res)
	}
	res := h.call(t, "read_media_file", map[string]any{"path": filepath.Join(dir, "pixel.png")})
	if len(res.Content) != 1 || res.Content[0].Kind != protov1.KindImage || !bytes.Equal(res.Content[0].Data, pixel) {
		t.Errorf("read_media_file = %+v; want the PNG's exact bytes", res)
	}
	if res := h.call(t, "read_text_file", map[string]any{"path": "/etc/passwd"}); !res.IsError {
		t.Errorf("reading outside the allowed directory = %+v; want the server's refusal", res)
	}
}

func TestMemoryServer(t *testing.T) {
	store := filepath.Join(t.TempDir(), "memory.jsonl")
	h := start(t, map[string]any{"command": testparts.NodeBin(t, "mcp-server-memory"),
		"env": map[string]string{"MEMORY_FILE_PATH": store}})

	tools, err := h.host.ListTools(context.Background())
	if err != nil || len(tools) != 9 {
		t.Fatalf("tools: %v, %v; want 9", toolNames(tools), err)
	}
	h.call(t, "create_entities", map[string]any{"entities": []map[string]any{
		{"name": "toolgate", "entityType": "project", "observations": []string{"is an MCP gateway"}}}})
	if res := h.call(t, "read_graph", nil); !strings.Contains(textOf(res), "is an MCP gateway") {
		t.Errorf("read_graph = %+v", res)
	}
	// The configured environment reached the server: it wrote where it was told.
	if data, err := os.ReadFile(store); err != nil || !bytes.Contains(data, []byte("toolgate")) {
		t.Errorf("memory file %s: %q, %v", store, data, err)
	}
}

func TestSequentialThinkingServer(t *testing.T) {
	h := start(t, map[string]any{"command": testparts.NodeBin(t, "mcp-server-sequential-thinking")})
	// It prints a banner on stderr for every thought; none of that may block it.
	for i := 1; i <= 20; i++ {
		res := h.call(t, "sequentialthinking", map[string]any{"thought": strings.Repeat("Consider the gateway. ", 50),
			"thoughtNumber": i, "totalThoughts": 20, "nextThoughtNeeded": i < 20})
		if res.IsError {
			t.Fatalf("thought %d: %+v", i, res)
		}
	}
	if n := strings.Count(h.logs.String(), "mcp server stderr"); n < 20 {
		t.Errorf("%d stderr lines logged; want the banner of every thought", n)
	}
}
