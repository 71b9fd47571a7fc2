// Command hello-plugin is a toolgate plugin written the way a third party
// writes one: its own main, nothing imported but the SDK.
package main

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate/sdk/plugin"
	"github.com/toolgate/toolgate/sdk/protov1"
)

// A 1×1 transparent PNG, to show image content crossing the gateway intact.
var pixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

type greetArgs struct {
	Name     string `json:"name" description:"Who to greet."`
	Language string `json:"language,omitempty" enum:"en,fr,de" description:"Language of the greeting (default en)."`
}

type countArgs struct {
	To      int `json:"to" description:"Count from 1 up to this number (1-100)."`
	DelayMS int `json:"delay_ms,omitempty" description:"Pause between numbers, in milliseconds."`
}

type echoArgs struct {
	Text string `json:"text" description:"Text to send back unchanged."`
}

// greetings are the plugin's greetings by language.
var greetings = map[string]string{"en": "Hello", "fr": "Bonjour", "de": "Hallo"}

func greet(_ context.Context, _ *plugin.Call, in greetArgs) (*plugin.Result, error) {
	hello := greetings[cmp.Or(in.Language, "en")]
	if strings.TrimSpace(in.Name) == "" {
		return plugin.Errorf("name must not be empty"), nil
	}
	return plugin.JSON(map[string]string{"greeting": hello + ", " + in.Name + "!"}, hello+", "+in.Name+"!")
}

// count reports progress as it goes, and stops as soon as the caller gives up.
func count(ctx context.Context, call *plugin.Call, in countArgs) (*plugin.Result, error) {
	if in.To < 1 || in.To > 100 {
		return plugin.Errorf("to must be between 1 and 100, got %d", in.To), nil
	}
	for i := 1; i <= in.To; i++ {
		call.Progress(float64(i), float64(in.To), fmt.Sprintf("counted %d", i))
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(in.DelayMS) * time.Millisecond):
		}
	}
	return plugin.Text(fmt.Sprintf("counted to %d", in.To)), nil
}

func main() {
	plugin.Serve(&plugin.Plugin{
		Name:    "hello",
		Version: "1.0.0",
		Tools: []plugin.Tool{
			plugin.NewTool("greet", "Greet someone by name, in English, French or German.", greet,
				plugin.ReadOnly(), plugin.Labels(map[string]string{"category": "demo"})),
			plugin.NewTool("echo", "Send the given text back unchanged.",
				func(_ context.Context, _ *plugin.Call, in echoArgs) (*plugin.Result, error) {
					return plugin.Text(in.Text), nil
				}, plugin.ReadOnly(), plugin.Idempotent()),
			plugin.NewTool("count", "Count up to a number, reporting progress for each step.", count,
				plugin.ReadOnly()),
			plugin.NewTool("pixel", "Return a tiny PNG image.",
				func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) {
					return &plugin.Result{Content: []plugin.Content{plugin.ImageContent(pixel, "image/png")}}, nil
				}, plugin.ReadOnly()),
		},
		Resources: []plugin.Resource{{
			Def: plugin.ResourceDef("hello://readme", "readme", "What the hello plugin is.", "text/plain"),
			Read: func(context.Context, string) ([]plugin.ResourceContents, error) {
				return []plugin.ResourceContents{{URI: "hello://readme", MIMEType: "text/plain",
					Text: "The hello plugin greets, echoes, counts and draws one pixel."}}, nil
			},
		}},
		ResourceTemplates: []plugin.ResourceTemplate{{
			Def: plugin.ResourceTemplateDef("hello://greeting/{language}", "greeting", "The greeting in one language: en, fr or de.", "text/plain"),
			Read: func(_ context.Context, _ string, vars map[string]string) ([]plugin.ResourceContents, error) {
				hello, ok := greetings[vars["language"]]
				if !ok {
					return nil, protov1.NotFoundf("hello has no greeting in %q; it speaks en, fr and de", vars["language"])
				}
				return []plugin.ResourceContents{{Text: hello}}, nil
			},
		}},
		Prompts: []plugin.Prompt{{
			Def: plugin.PromptDef("welcome", "Welcome a new user.", plugin.PromptArgument{Name: "name", Required: true}),
			Render: func(_ context.Context, args map[string]string) (*plugin.PromptResult, error) {
				return &plugin.PromptResult{Messages: []plugin.PromptMessage{{Role: "user",
					Content: plugin.TextContent("Please welcome " + args["name"] + " warmly.")}}}, nil
			},
		}},
	})
}
