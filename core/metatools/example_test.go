package metatools

import (
	"encoding/json"
	"testing"

	jsonschema "github.com/toolgate/toolgate/sdk/schema"
)

// describe_tool's example is meant to be pasted: its arguments pass the
// tool's own schema, bounds, lengths and formats included.
func TestExampleArgumentsPassTheirSchema(t *testing.T) {
	for name, s := range map[string]string{
		"plain":            `{"type":"object","properties":{"msg":{"type":"string"},"n":{"type":"integer"}},"required":["msg","n"]}`,
		"minimum":          `{"type":"object","properties":{"replicas":{"type":"integer","minimum":3,"maximum":10}},"required":["replicas"]}`,
		"below one":        `{"type":"object","properties":{"ratio":{"type":"number","minimum":0,"maximum":0.5}},"required":["ratio"]}`,
		"negative":         `{"type":"object","properties":{"offset":{"type":"integer","maximum":-5}},"required":["offset"]}`,
		"exclusive":        `{"type":"object","properties":{"p":{"type":"number","exclusiveMinimum":1,"exclusiveMaximum":2},"i":{"type":"integer","exclusiveMinimum":1}},"required":["p","i"]}`,
		"draft-04 flags":   `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"i":{"type":"integer","minimum":1,"exclusiveMinimum":true}},"required":["i"]}`,
		"multipleOf":       `{"type":"object","properties":{"port":{"type":"integer","minimum":1024,"multipleOf":100},"half":{"type":"number","multipleOf":0.5,"minimum":2.1}},"required":["port","half"]}`,
		"lengths":          `{"type":"object","properties":{"code":{"type":"string","minLength":12},"id":{"type":"string","maxLength":3}},"required":["code","id"]}`,
		"formats draft-07": `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"url":{"type":"string","format":"uri"},"at":{"type":"string","format":"date-time"},"to":{"type":"string","format":"email"},"id":{"type":"string","format":"uuid"},"ip":{"type":"string","format":"ipv4"}},"required":["url","at","to","id","ip"]}`,
		"minItems":         `{"type":"object","properties":{"pair":{"type":"array","items":{"type":"integer","minimum":5},"minItems":2}},"required":["pair"]}`,
		"const":            `{"type":"object","properties":{"v":{"const":2}},"required":["v"]}`,
		"anyOf":            `{"type":"object","properties":{"when":{"anyOf":[{"type":"null"},{"type":"integer","minimum":7}]}},"required":["when"]}`,
		"nested":           `{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","minimum":2}},"required":["size"]}},"required":["spec"]}`,
		"nullable":         `{"type":"object","properties":{"limit":{"type":["integer","null"],"minimum":10}},"required":["limit"]}`,
		"tuple items":      `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"xy":{"type":"array","items":[{"type":"number"},{"type":"number"}]},"name":{"type":"string"}},"required":["xy","name"]}`,
	} {
		args, err := json.Marshal(Example(json.RawMessage(s)))
		if err != nil {
			t.Fatal(err)
		}
		compiled, err := jsonschema.Compile(json.RawMessage(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := compiled.Validate(args); err != nil {
			t.Errorf("%s: example %s fails its schema: %v", name, args, err)
		}
	}
}
