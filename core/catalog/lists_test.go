package catalog

import (
	"testing"

	"github.com/toolgate/toolgate/sdk/protov1"
)

func TestSetReportsPromptAndResourceChanges(t *testing.T) {
	c := New()
	var seen []Change
	c.OnChange(func(ch Change) { seen = append(seen, ch) })
	prompts := []protov1.Prompt{{Name: "greet", Arguments: []protov1.PromptArgument{{Name: "who"}}}}
	templates := []protov1.ResourceTemplate{{URITemplate: "mem://t/{id}", Name: "t"}}
	info := protov1.Info{Name: "mem", Capabilities: protov1.Capabilities{Completions: true}}

	ch := c.Set("mem", &Manifest{Info: info, Prompts: prompts})
	if !ch.PromptsChanged || ch.ResourcesChanged || len(seen) != 1 {
		t.Fatalf("first prompts: %+v (%d notices)", ch, len(seen))
	}
	ch = c.Set("mem", &Manifest{Info: info, Prompts: prompts, Templates: templates})
	if ch.PromptsChanged || !ch.ResourcesChanged {
		t.Fatalf("a template added: %+v", ch)
	}
	if ch = c.Set("mem", &Manifest{Info: info, Prompts: prompts, Templates: templates}); !ch.Empty() || len(seen) != 2 {
		t.Fatalf("the same manifest again: %+v (%d notices)", ch, len(seen))
	}
	changed := []protov1.Prompt{{Name: "greet", Arguments: []protov1.PromptArgument{{Name: "who", Required: true}}}}
	if ch = c.Set("mem", &Manifest{Info: info, Prompts: changed, Templates: templates}); !ch.PromptsChanged {
		t.Errorf("a prompt argument made required: %+v", ch)
	}

	if tmpl, ok := c.Template("mem://t/{id}"); !ok || tmpl.Plugin != "mem" {
		t.Errorf("Template = %+v, %v", tmpl, ok)
	}
	if _, ok := c.Template("mem://t/{other}"); ok {
		t.Error("Template found a template nobody lists")
	}
	if got, ok := c.Info("mem"); !ok || !got.Capabilities.Completions {
		t.Errorf("Info = %+v, %v", got, ok)
	}

	if ch = c.Set("mem", nil); !ch.PromptsChanged || !ch.ResourcesChanged {
		t.Errorf("plugin removed: %+v", ch)
	}
	if _, ok := c.Info("mem"); ok {
		t.Error("Info of a removed plugin")
	}
}
