package plugin

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSchemaOf(t *testing.T) {
	type inner struct {
		X float64 `json:"x"`
	}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"empty", struct{}{}, `{"additionalProperties":false,"properties":{},"type":"object"}`},
		{"required and optional", struct {
			A string `json:"a" description:"the a"`
			B int    `json:"b,omitempty"`
			C *bool  `json:"c"`
			D string `json:"-"`
		}{}, `{"additionalProperties":false,"properties":{"a":{"description":"the a","type":"string"},"b":{"type":"integer"},"c":{"type":"boolean"}},"required":["a"],"type":"object"}`},
		{"enum default", struct {
			L string `json:"l,omitempty" enum:"en,fr" default:"en"`
		}{}, `{"additionalProperties":false,"properties":{"l":{"default":"en","enum":["en","fr"],"type":"string"}},"type":"object"}`},
		{"typed enum and default", struct {
			N int     `json:"n" enum:"1,2" default:"2"`
			B bool    `json:"b,omitempty" enum:"true"`
			F float64 `json:"f,omitempty" default:"0.5"`
			S []int   `json:"s,omitempty" enum:"7,8"`
		}{}, `{"additionalProperties":false,"properties":{"b":{"enum":[true],"type":"boolean"},"f":{"default":0.5,"type":"number"},"n":{"default":2,"enum":[1,2],"type":"integer"},"s":{"items":{"enum":[7,8],"type":"integer"},"type":"array"}},"type":"object"}`},
		{"pattern", struct {
			U  string   `json:"u" pattern:"^https?://"`
			Us []string `json:"us,omitempty" pattern:"^[a-z]+$"`
		}{}, `{"additionalProperties":false,"properties":{"u":{"pattern":"^https?://","type":"string"},"us":{"items":{"pattern":"^[a-z]+$","type":"string"},"type":"array"}},"required":["u"],"type":"object"}`},
		{"nested", struct {
			In   inner             `json:"in"`
			List []inner           `json:"list,omitempty"`
			M    map[string]string `json:"m,omitempty"`
			T    time.Time         `json:"t,omitempty"`
			Raw  json.RawMessage   `json:"raw,omitempty"`
			Blob []byte            `json:"blob,omitempty"`
		}{}, `{"additionalProperties":false,"properties":{"blob":{"contentEncoding":"base64","type":"string"},"in":{"additionalProperties":false,"properties":{"x":{"type":"number"}},"required":["x"],"type":"object"},"list":{"items":{"additionalProperties":false,"properties":{"x":{"type":"number"}},"required":["x"],"type":"object"},"type":"array"},"m":{"additionalProperties":{"type":"string"},"type":"object"},"raw":{},"t":{"format":"date-time","type":"string"}},"required":["in"],"type":"object"}`},
	}
	for _, tt := range tests {
		got, err := SchemaOf(tt.v)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	type target struct {
		Kind string `json:"kind" description:"what"`
		Name string `json:"name,omitempty"`
	}
	type withEmbedded struct {
		target
		DryRun bool `json:"dry_run,omitempty"`
	}
	got, err := SchemaOf(withEmbedded{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"additionalProperties":false,"properties":{"dry_run":{"type":"boolean"},"kind":{"description":"what","type":"string"},"name":{"type":"string"}},"required":["kind"],"type":"object"}`; string(got) != want {
		t.Errorf("embedded struct:\n got %s\nwant %s", got, want)
	}
	// Decoding agrees with the schema: the embedded fields are top-level.
	var in withEmbedded
	if err := decodeArgs([]byte(`{"kind":"pods","dry_run":true}`), &in); err != nil || in.Kind != "pods" || !in.DryRun {
		t.Errorf("decode into embedded struct: %+v %v", in, err)
	}

	type rec struct {
		Next *rec `json:"next"`
	}
	if _, err := SchemaOf(rec{}); err == nil {
		t.Error("recursive type: no error")
	}
	if _, err := SchemaOf(struct {
		N int `json:"n" pattern:"^1$"`
	}{}); err == nil || !strings.Contains(err.Error(), "field N: pattern") {
		t.Errorf("pattern on an int: %v", err)
	}
	if _, err := SchemaOf(struct {
		S string `json:"s" pattern:"(["`
	}{}); err == nil || !strings.Contains(err.Error(), "field S: pattern") {
		t.Errorf("pattern that does not compile: %v", err)
	}
	if _, err := SchemaOf("str"); err == nil {
		t.Error("non-struct arguments: no error")
	}
}
