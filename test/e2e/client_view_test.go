package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// metaTools is everything an assistant may see in tools/list.
var metaTools = []string{
	"call_tool", "describe_prompt", "describe_resource", "describe_tool", "filter_tools",
	"get_prompt", "get_resource", "list_core_tools", "list_prompts", "list_resources", "list_tools",
}

func TestClientOverHTTP(t *testing.T) {
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true)})
	c := connectHTTP(t, g.URL)
	checkClientView(t, c)
	g.requireAlive()
}

func TestClientOverStdio(t *testing.T) {
	c := connectStdio(t, setup{Plugins: everythingPlugin(t, "everything", true)})
	if c.ServerPid == 0 {
		t.Fatal("the SDK did not report the pid of the gateway it spawned")
	}
	checkClientView(t, c)

	t.Run("1000 requests in a row", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		start := time.Now()
		for i := range 1000 {
			msg := fmt.Sprintf("request %d", i)
			r, err := c.callTool(ctx, "x_everything_echo", map[string]any{"message": msg})
			if err != nil {
				t.Fatalf("request %d of 1000: %v", i, err)
			}
			if r.IsError || r.text() != "Echo: "+msg {
				t.Fatalf("request %d of 1000 answered %+v", i, r)
			}
		}
		t.Logf("1000 call_tool requests over stdio in %s", time.Since(start).Round(time.Millisecond))
	})

	t.Run("the gateway and its plugins end with the session", func(t *testing.T) {
		gw, ok := lookProc(c.ServerPid)
		if !ok {
			t.Fatalf("the gateway (pid %d) is not running", c.ServerPid)
		}
		seen := processSet{}
		seen.add(gw)
		seen.add(descendants(gw.Pid)...)
		if len(seen) < 3 {
			t.Fatalf("want the gateway, the plugin and the npm server, got %v", seen)
		}
		start := time.Now()
		exited := make(chan time.Duration, 1)
		go func() {
			for gw.alive() {
				time.Sleep(5 * time.Millisecond)
			}
			exited <- time.Since(start)
		}()
		c.close()
		if err := seen.waitGone(15 * time.Second); err != nil {
			t.Fatal(err)
		}
		t.Logf("the gateway exited %s after the client closed; all gone after %s", (<-exited).Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	})
}

// checkClientView checks what an assistant sees through a session: only the
// meta-tools, search, and every kind of content arriving as the server sent it.
func checkClientView(t *testing.T, c *mcpClient) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c.waitPlugin(ctx, "everything", 30*time.Second, running)

	t.Run("tools/list shows only the meta-tools", func(t *testing.T) {
		names, err := c.listTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(names)
		if !slices.Equal(names, metaTools) {
			t.Fatalf("tools/list = %v, want exactly %v", names, metaTools)
		}
	})

	t.Run("filter_tools finds echo", func(t *testing.T) {
		var out struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		c.meta(ctx, "filter_tools", map[string]any{"query": "echo"}, &out)
		if len(out.Tools) == 0 || out.Tools[0].Name != "x_everything_echo" {
			t.Fatalf("filter_tools {query: echo} = %+v, want x_everything_echo first", out.Tools)
		}
	})

	t.Run("call_tool runs echo", func(t *testing.T) {
		r, err := c.callTool(ctx, "x_everything_echo", map[string]any{"message": "hello through the gateway"})
		if err != nil {
			t.Fatal(err)
		}
		if r.IsError || r.text() != "Echo: hello through the gateway" {
			t.Fatalf("echo answered %+v", r)
		}
	})

	t.Run("image arrives intact", func(t *testing.T) {
		r, err := c.callTool(ctx, "x_everything_get-tiny-image", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if kinds := contentKinds(r); !slices.Equal(kinds, []string{"text", "image", "text"}) {
			t.Fatalf("content kinds %v, want text, image, text", kinds)
		}
		img := r.Content[1]
		if img.MimeType != "image/png" {
			t.Errorf("image mimeType %q, want image/png", img.MimeType)
		}
		got, err := base64.StdEncoding.DecodeString(img.Data)
		if err != nil {
			t.Fatalf("image data is not base64: %v", err)
		}
		if !bytes.Equal(got, tinyImage(t)) {
			t.Fatalf("image bytes differ from the server's (%d bytes, want %d)", len(got), len(tinyImage(t)))
		}
		clean, dropped, err := withoutBadAncillary(got)
		if err != nil {
			t.Fatalf("image is not a valid PNG: %v", err)
		}
		decoded, err := png.Decode(bytes.NewReader(clean))
		if err != nil {
			t.Fatalf("image does not decode as PNG: %v", err)
		}
		t.Logf("PNG %v, %d bytes; ancillary chunks with a bad CRC in the server's own image: %v", decoded.Bounds().Size(), len(got), dropped)
	})

	t.Run("embedded blob arrives intact", func(t *testing.T) {
		r, err := c.callTool(ctx, "x_everything_get-resource-reference", map[string]any{"resourceType": "Blob", "resourceId": 2})
		if err != nil {
			t.Fatal(err)
		}
		if kinds := contentKinds(r); !slices.Equal(kinds, []string{"text", "resource", "text"}) {
			t.Fatalf("content kinds %v, want text, resource, text", kinds)
		}
		res := r.Content[1].Resource
		if res == nil || res.URI != "demo://resource/dynamic/blob/2" || res.MimeType != "text/plain" || res.Text != "" {
			t.Fatalf("embedded resource %+v, want blob demo://resource/dynamic/blob/2 (text/plain)", res)
		}
		blob, err := base64.StdEncoding.DecodeString(res.Blob)
		if err != nil {
			t.Fatalf("blob is not base64: %v", err)
		}
		if !regexp.MustCompile(`^Resource 2: This is a base64 blob created at \S.*$`).Match(blob) {
			t.Fatalf("blob decodes to %q", blob)
		}
	})

	t.Run("structured content arrives intact", func(t *testing.T) {
		r, err := c.callTool(ctx, "x_everything_get-structured-content", map[string]any{"location": "New York"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"temperature": 33.0, "conditions": "Cloudy", "humidity": 82.0}
		var got, text map[string]any
		if err := json.Unmarshal(r.StructuredContent, &got); err != nil {
			t.Fatalf("structuredContent %s: %v", r.StructuredContent, err)
		}
		if r.IsError || !reflect.DeepEqual(got, want) {
			t.Fatalf("structuredContent = %s, want %v", r.StructuredContent, want)
		}
		if err := json.Unmarshal([]byte(r.text()), &text); err != nil || !reflect.DeepEqual(text, want) {
			t.Fatalf("text block %q does not carry the same JSON", r.text())
		}
	})

	t.Run("progress reaches the client", func(t *testing.T) {
		call := c.startTool("x_everything_trigger-long-running-operation", map[string]any{"duration": 2, "steps": 4}, 30*time.Second)
		var got []progress
		var first time.Time
		for len(got) < 4 {
			select {
			case p := <-call.Progress:
				if first.IsZero() {
					first = time.Now()
				}
				got = append(got, p)
			case <-call.done:
				t.Fatalf("the call ended after %d progress notifications: %v (%v)", len(got), got, call.err)
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			}
		}
		r, err := call.waitResult(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ended := time.Now()
		if r.IsError || r.text() != "Long running operation completed. Duration: 2 seconds, Steps: 4." {
			t.Fatalf("long-running operation answered %+v", r)
		}
		for i, p := range got {
			if p.Progress != float64(i+1) || p.Total != 4 {
				t.Fatalf("progress %d = %+v, want %d of 4 (all: %v)", i, p, i+1, got)
			}
		}
		// Forwarded as it happens, not collected until the end.
		if lead := ended.Sub(first); lead < time.Second {
			t.Fatalf("the first progress came only %s before the result", lead)
		}
	})
}

func contentKinds(r *result) []string {
	kinds := make([]string, len(r.Content))
	for i, c := range r.Content {
		kinds[i] = c.Type
	}
	return kinds
}

// tinyImage is the PNG server-everything's get-tiny-image sends, read from
// its own source so the comparison is byte for byte.
func tinyImage(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testparts.NodeModules(t), "node_modules", "@modelcontextprotocol",
		"server-everything", "dist", "tools", "get-tiny-image.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`MCP_TINY_IMAGE = "([A-Za-z0-9+/=]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("MCP_TINY_IMAGE not found in server-everything's get-tiny-image.js")
	}
	b, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "\x89PNG") {
		t.Fatal("server-everything's tiny image is not a PNG")
	}
	return b
}

// withoutBadAncillary checks a PNG's structure and returns it without the
// ancillary chunks whose CRC is wrong (server-everything's tiny image ships
// with a broken iCCP CRC, which Go's strict decoder refuses). A critical
// chunk with a bad CRC, or a malformed stream, is an error.
func withoutBadAncillary(b []byte) (out []byte, dropped []string, err error) {
	const sig = "\x89PNG\r\n\x1a\n"
	if !bytes.HasPrefix(b, []byte(sig)) {
		return nil, nil, fmt.Errorf("no PNG signature")
	}
	out = append(out, sig...)
	rest := b[len(sig):]
	for len(rest) > 0 {
		if len(rest) < 12 {
			return nil, nil, fmt.Errorf("truncated chunk header")
		}
		n := int(binary.BigEndian.Uint32(rest))
		if n > len(rest)-12 {
			return nil, nil, fmt.Errorf("chunk of %d bytes overruns the stream", n)
		}
		chunk := rest[:12+n]
		kind := string(chunk[4:8])
		if crc32.ChecksumIEEE(chunk[4:8+n]) != binary.BigEndian.Uint32(chunk[8+n:]) {
			if kind[0] >= 'A' && kind[0] <= 'Z' {
				return nil, nil, fmt.Errorf("critical chunk %s has a bad CRC", kind)
			}
			dropped = append(dropped, kind)
		} else {
			out = append(out, chunk...)
		}
		rest = rest[12+n:]
		if kind == "IEND" && len(rest) > 0 {
			return nil, nil, fmt.Errorf("%d bytes after IEND", len(rest))
		}
	}
	return out, dropped, nil
}
