package mcpstdio_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
	"github.com/toolgate/toolgate/sdk/plugintest"
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

// TestFilesystemServerAtScale reads what users point server-filesystem at:
// a multi-megabyte text file under a path with spaces and non-ASCII
// characters (its answer, which holds the text twice, is over gRPC's default
// 4 MiB message limit), a binary file (an embedded blob), and a tree of
// thousands of entries, each of which must arrive exactly as on disk.
func TestFilesystemServerAtScale(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "dir with spaces", "ünïcødé 日本")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for i := 0; text.Len() < 3<<20; i++ {
		fmt.Fprintf(&text, "line %d: héllo wörld ✓ 日本語 \"quoted\" \\ tab\t<tag>&amp;\n", i)
	}
	textPath := filepath.Join(dir, "fïle ✓.txt")
	blob := make([]byte, 1<<20)
	for i := range blob {
		blob[i] = byte(i*7 + i>>8)
	}
	blobPath := filepath.Join(dir, "data ✓.bin")
	for path, data := range map[string][]byte{textPath: []byte(text.String()), blobPath: blob} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const dirs, files = 40, 50
	for d := 0; d < dirs; d++ {
		sub := filepath.Join(root, "tree", fmt.Sprintf("d%02d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 0; f < files; f++ {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%02d.txt", f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	h := start(t, map[string]any{"command": testparts.NodeBin(t, "mcp-server-filesystem"), "args": []string{root}})
	if res := h.call(t, "read_text_file", map[string]any{"path": textPath}); res.IsError || textOf(res) != text.String() {
		t.Errorf("read_text_file of %d bytes: isError %v, got %d bytes, equal %v", text.Len(), res.IsError, len(textOf(res)), textOf(res) == text.String())
	}
	res := h.call(t, "read_media_file", map[string]any{"path": blobPath})
	if len(res.Content) != 1 || res.Content[0].Kind != protov1.KindResource || !bytes.Equal(res.Content[0].Resource.Blob, blob) {
		t.Errorf("read_media_file of a binary file: %d blocks; want one embedded blob of its exact bytes", len(res.Content))
	}
	res = h.call(t, "directory_tree", map[string]any{"path": filepath.Join(root, "tree")})
	var tree []struct {
		Name     string `json:"name"`
		Children []struct {
			Name string `json:"name"`
		} `json:"children"`
	}
	if err := json.Unmarshal([]byte(textOf(res)), &tree); err != nil {
		t.Fatalf("directory_tree answer is not the JSON tree: %v", err)
	}
	n := 0
	for _, d := range tree {
		n += len(d.Children)
	}
	if len(tree) != dirs || n != dirs*files {
		t.Errorf("directory_tree: %d directories, %d files; want %d and %d", len(tree), n, dirs, dirs*files)
	}
}

// TestFilesystemRootsChanged: server-filesystem takes the roots it asks for
// after notifications/roots/list_changed as its allowed directories, for
// every client. A client that changed its roots while its own call ran (a
// read of a FIFO holds it here) used to answer that request, and so replaced
// the directories the operator configured with its own. By default the
// change is not passed on and the configured directory stays; with
// forward_roots_changed it is, as documented.
func TestFilesystemRootsChanged(t *testing.T) {
	for _, forward := range []bool{false, true} {
		t.Run(fmt.Sprintf("forward_roots_changed=%v", forward), func(t *testing.T) {
			allowed, claimed := t.TempDir(), t.TempDir()
			fifo := filepath.Join(allowed, "hold")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			h := start(t, map[string]any{"command": testparts.NodeBin(t, "mcp-server-filesystem"), "args": []string{allowed},
				"forward_roots_changed": forward})
			peer := &plugintest.Peer{ListRoots: plugintest.Answer(map[string]any{
				"roots": []map[string]any{{"uri": "file://" + claimed, "name": "mine"}}})}
			held := make(chan error, 1)
			go func() {
				_, err := h.callWith(t, &protov1.CallRequest{Name: "read_text_file",
					Arguments: mustJSON(t, map[string]any{"path": fifo}), Peer: peer}, &plugintest.Events{})
				held <- err
			}()
			if !waitFor(10*time.Second, func() bool { _, running := h.b.Tracked(); return running == 1 }) {
				t.Fatal("the read of the FIFO is not in progress")
			}
			if err := h.host.(protov1.RootsWatcher).RootsChanged(context.Background()); err != nil {
				t.Fatalf("RootsChanged: %v", err)
			}
			asked := waitFor(3*time.Second, func() bool { return len(peer.Requests()) > 0 })
			// Release the read: a writer opens the FIFO and closes it.
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				_ = w.Close()
			}
			if err := <-held; err != nil {
				t.Fatalf("read of the FIFO: %v", err)
			}
			dirs := textOf(h.call(t, "list_allowed_directories", map[string]any{}))
			if forward {
				if !asked || !strings.Contains(dirs, claimed) {
					t.Errorf("asked the calling client %v, allowed directories %q; want the client's roots passed on", asked, dirs)
				}
				return
			}
			if asked || !strings.Contains(dirs, allowed) || strings.Contains(dirs, claimed) {
				t.Errorf("asked the calling client %v, allowed directories %q; want only the configured %s", asked, dirs, allowed)
			}
		})
	}
}
