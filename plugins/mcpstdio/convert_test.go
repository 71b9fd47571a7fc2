package mcpstdio

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestContentFromWire(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block string
		check func(t *testing.T, c protov1.Content)
		fails bool
	}{
		{name: "text with annotations and meta",
			block: `{"type":"text","text":"hi","annotations":{"audience":["assistant"],"lastModified":"2025-01-01T00:00:00Z"},"_meta":{"k":1}}`,
			check: func(t *testing.T, c protov1.Content) {
				if c.Kind != protov1.KindText || c.Text != "hi" || string(c.Annotations) != `{"audience":["assistant"],"lastModified":"2025-01-01T00:00:00Z"}` || string(c.Meta) != `{"k":1}` {
					t.Errorf("%+v", c)
				}
			}},
		{name: "image, padded base64", block: `{"type":"image","data":"AAEC/w==","mimeType":"image/png"}`,
			check: func(t *testing.T, c protov1.Content) {
				if c.Kind != protov1.KindImage || string(c.Data) != "\x00\x01\x02\xff" || c.MIMEType != "image/png" {
					t.Errorf("%+v", c)
				}
			}},
		{name: "audio, unpadded base64", block: `{"type":"audio","data":"AAEC/w","mimeType":"audio/ogg"}`,
			check: func(t *testing.T, c protov1.Content) {
				if c.Kind != protov1.KindAudio || string(c.Data) != "\x00\x01\x02\xff" {
					t.Errorf("%+v", c)
				}
			}},
		{name: "bad base64", block: `{"type":"image","data":"%%%","mimeType":"image/png"}`, fails: true},
		{name: "embedded blob", block: `{"type":"resource","resource":{"uri":"a://b","mimeType":"x/y","blob":"aGk=","_meta":{"m":true}}}`,
			check: func(t *testing.T, c protov1.Content) {
				if r := c.Resource; c.Kind != protov1.KindResource || !r.IsBlob() || string(r.Blob) != "hi" || r.URI != "a://b" || string(r.Meta) != `{"m":true}` {
					t.Errorf("%+v", c.Resource)
				}
			}},
		{name: "embedded text", block: `{"type":"resource","resource":{"uri":"a://b","text":"body"}}`,
			check: func(t *testing.T, c protov1.Content) {
				if r := c.Resource; r.IsBlob() || r.Text != "body" {
					t.Errorf("%+v", c.Resource)
				}
			}},
		{name: "resource without resource", block: `{"type":"resource"}`, fails: true},
		{name: "link without size", block: `{"type":"resource_link","uri":"a://b","name":"b","mimeType":"text/plain","_meta":{"l":2}}`,
			check: func(t *testing.T, c protov1.Content) {
				if l := c.Link; c.Kind != protov1.KindResourceLink || l.URI != "a://b" || l.Size != -1 || l.MIMEType != "text/plain" || string(c.Meta) != `{"l":2}` {
					t.Errorf("%+v %+v", c, c.Link)
				}
			}},
		{name: "null meta stays absent", block: `{"type":"text","text":"","_meta":null,"annotations":null}`,
			check: func(t *testing.T, c protov1.Content) {
				if c.Meta != nil || c.Annotations != nil {
					t.Errorf("%+v", c)
				}
			}},
		{name: "unknown kind keeps its JSON", block: `{"type":"hologram","depth":3}`,
			check: func(t *testing.T, c protov1.Content) {
				if c.Kind != protov1.KindText || c.Text != `{"type":"hologram","depth":3}` {
					t.Errorf("%+v", c)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := contentFromWire(json.RawMessage(tc.block))
			if tc.fails {
				if err == nil {
					t.Errorf("accepted %s as %+v", tc.block, c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestToolFromWire(t *testing.T) {
	var w wireTool
	raw := `{"name":"t","title":"T","description":"d","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},
		"annotations":{"title":"AT","readOnlyHint":false,"destructiveHint":false,"openWorldHint":true},"_meta":{"x":1}}`
	if err := json.Unmarshal([]byte(raw), &w); err != nil {
		t.Fatal(err)
	}
	tool := toolFromWire(w)
	a := tool.Annotations
	if tool.Name != "t" || tool.Title != "T" || string(tool.OutputSchema) != `{"type":"object"}` || string(tool.Meta) != `{"x":1}` ||
		a.Title != "AT" || a.ReadOnly == nil || *a.ReadOnly || a.Destructive == nil || *a.Destructive || a.Idempotent != nil || !*a.OpenWorld {
		t.Errorf("%+v", tool)
	}
}

func TestJSONLines(t *testing.T) {
	in := "banner\n{\"a\":1}\r\n\n  \nnot {json\n{\"b\":2}"
	var logged strings.Builder
	log := hclog.New(&hclog.LoggerOptions{Output: &logged})
	out, err := io.ReadAll(newJSONLines(strings.NewReader(in), log))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "{\"a\":1}\n{\"b\":2}\n" {
		t.Errorf("passed on %q", out)
	}
	if !strings.Contains(logged.String(), "banner") || !strings.Contains(logged.String(), "not {json") {
		t.Errorf("skipped lines not logged: %s", logged.String())
	}
}

// FuzzResultFromWire feeds the parser of servers' tool results arbitrary
// JSON: it may refuse it, never panic, and what it accepts has a kind set.
func FuzzResultFromWire(f *testing.F) {
	f.Add(`{"content":[{"type":"text","text":"x"}],"isError":true}`)
	f.Add(`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"resource","resource":{"uri":"u","blob":"AA"}}]}`)
	f.Add(`{"content":[{"type":"resource_link","uri":"u","name":"n","size":-3}],"structuredContent":{"a":[1]},"_meta":null}`)
	f.Add(`{"content":null}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, raw string) {
		res, err := resultFromWire(json.RawMessage(raw))
		if err != nil {
			return
		}
		for _, c := range res.Content {
			switch c.Kind {
			case protov1.KindResource:
				if c.Resource == nil {
					t.Fatalf("resource block without contents from %s", raw)
				}
			case protov1.KindResourceLink:
				if c.Link == nil {
					t.Fatalf("link block without a link from %s", raw)
				}
			}
		}
	})
}
