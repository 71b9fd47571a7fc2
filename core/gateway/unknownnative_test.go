package gateway

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/core/catalog"
	nativelib "github.com/toolgate/toolgate/core/native"
	"github.com/toolgate/toolgate/core/supervisor"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// A prompt, resource or template a client names wrong gets MCP's error code
// and the name it probably meant, as the meta-tools give it, on every
// version, seen by the official Go SDK client. The library is the real one,
// answering from a catalog: an unknown name never reaches a plugin.
func TestGoSDKClientHearsWhatAnUnknownNameMeant(t *testing.T) {
	cat := catalog.New()
	cat.Set("mem", &catalog.Manifest{
		Info:      protov1.Info{Name: "mem"},
		Prompts:   []protov1.Prompt{{Name: "greet", Arguments: []protov1.PromptArgument{{Name: "who", Required: true}}}},
		Resources: []protov1.Resource{{URI: "mem://readme", Name: "readme", Size: -1}},
		Templates: []protov1.ResourceTemplate{{URITemplate: "mem://t/{id}", Name: "t"}},
	})
	lib := nativelib.New(cat, supervisor.NewManager(nil, supervisor.ManagerOptions{}), nil, nil)
	f := newFixture(t, func(o *Options) { o.Prompts, o.PluginResources, o.Completions = lib, lib, lib })
	url := startHTTP(t, f).URL + "/mcp"

	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			cs := goConnect(t, &gomcp.StreamableClientTransport{Endpoint: url, HTTPClient: http.DefaultClient, MaxRetries: -1}, version, nil)
			ctx := callCtx(t)
			resourceCode := int64(-32002)
			if version == "2026-07-28" {
				resourceCode = codeInvalidParams
			}
			tests := []struct {
				what     string
				call     func() error
				code     int64
				contains []string
				data     string
			}{
				{"prompts/get of a typo", func() error {
					_, err := cs.GetPrompt(ctx, &gomcp.GetPromptParams{Name: "x_mem_gret"})
					return err
				}, codeInvalidParams, []string{`unknown prompt "x_mem_gret"; did you mean "x_mem_greet"?`, "prompts/list"}, ""},
				{"prompts/get of the plugin's own name", func() error {
					_, err := cs.GetPrompt(ctx, &gomcp.GetPromptParams{Name: "greet"})
					return err
				}, codeInvalidParams, []string{`did you mean "x_mem_greet"?`}, ""},
				{"resources/read of a typo", func() error {
					_, err := cs.ReadResource(ctx, &gomcp.ReadResourceParams{URI: "mem://readne"})
					return err
				}, resourceCode, []string{`unknown resource "mem://readne"; did you mean "mem://readme"?`, "resources/list"}, `{"uri":"mem://readne"}`},
				{"resources/read of nothing like it", func() error {
					_, err := cs.ReadResource(ctx, &gomcp.ReadResourceParams{URI: "other://x"})
					return err
				}, resourceCode, []string{`unknown resource "other://x"; resources/list`}, `{"uri":"other://x"}`},
				{"completion of an unknown prompt", func() error {
					_, err := cs.Complete(ctx, &gomcp.CompleteParams{Ref: &gomcp.CompleteReference{Type: "ref/prompt", Name: "x_mem_greeet"},
						Argument: gomcp.CompleteParamsArgument{Name: "who", Value: "A"}})
					return err
				}, codeInvalidParams, []string{`ref: unknown prompt "x_mem_greeet"; did you mean "x_mem_greet"?`}, ""},
				{"completion of an unknown template", func() error {
					_, err := cs.Complete(ctx, &gomcp.CompleteParams{Ref: &gomcp.CompleteReference{Type: "ref/resource", URI: "mem://t/{ID}"},
						Argument: gomcp.CompleteParamsArgument{Name: "id", Value: "1"}})
					return err
				}, codeInvalidParams, []string{`ref: unknown resource template "mem://t/{ID}"; did you mean "mem://t/{id}"?`}, ""},
				{"completion without an argument name", func() error {
					_, err := cs.Complete(ctx, &gomcp.CompleteParams{Ref: &gomcp.CompleteReference{Type: "ref/resource", URI: "mem://t/{id}"},
						Argument: gomcp.CompleteParamsArgument{Value: "1"}})
					return err
				}, codeInvalidParams, []string{"argument.name is required"}, ""},
			}
			for _, tt := range tests {
				var werr *jsonrpc.Error
				if err := tt.call(); !errors.As(err, &werr) {
					t.Errorf("%s: %v, want a JSON-RPC error", tt.what, err)
					continue
				}
				if werr.Code != tt.code {
					t.Errorf("%s: code %d, want %d (%s)", tt.what, werr.Code, tt.code, werr.Message)
				}
				for _, want := range tt.contains {
					if !strings.Contains(werr.Message, want) {
						t.Errorf("%s: %q, want it to say %q", tt.what, werr.Message, want)
					}
				}
				if tt.data != "" && string(werr.Data) != tt.data {
					t.Errorf("%s: data %s, want %s", tt.what, werr.Data, tt.data)
				}
			}
			// A listed resource has nothing to complete: no suggestions, no error.
			got, err := cs.Complete(ctx, &gomcp.CompleteParams{Ref: &gomcp.CompleteReference{Type: "ref/resource", URI: "mem://readme"},
				Argument: gomcp.CompleteParamsArgument{Name: "x"}})
			if err != nil || len(got.Completion.Values) != 0 {
				t.Errorf("completion of a listed resource: %+v, %v", got, err)
			}
		})
	}
}
