package schema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	const tool = `{"type":"object","properties":{"path":{"type":"string"},"opts":{"type":"object","properties":{"depth":{"type":"integer"}},"additionalProperties":false}},"required":["path"],"additionalProperties":false}`
	const draft7 = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}}}`
	const url = `{"type":"object","properties":{"url":{"type":"string","pattern":"^https?://"}}}`
	const inDoc = `{"$defs":{"name":{"type":"string"}},"type":"object","properties":{"who":{"$ref":"#/$defs/name"}}}`
	tests := []struct {
		schema, value string
		want          []Problem
	}{
		{tool, `{"path":"a"}`, nil},
		{tool, ``, []Problem{{Path: "", Message: "missing property 'path'"}}},
		{tool, `null`, []Problem{{Path: "", Message: "missing property 'path'"}}},
		{tool, `{"path":3}`, []Problem{{Path: "/path", Message: "got number, want string"}}},
		{tool, `{"path":"a","pahts":1}`, []Problem{{Path: "/pahts", Message: `unknown name "pahts"`, Unknown: true, Suggestion: "path"}}},
		{tool, `{"path":"a","opts":{"dept":1}}`, []Problem{{Path: "/opts/dept", Message: `unknown name "dept"`, Unknown: true, Suggestion: "depth"}}},
		{tool, `{"path":"a","zzzzzz":1}`, []Problem{{Path: "/zzzzzz", Message: `unknown name "zzzzzz"`, Unknown: true}}},
		{draft7, `{"n":0}`, []Problem{{Path: "/n", Message: "minimum: got 0, want 1"}}},
		{inDoc, `{"who":1}`, []Problem{{Path: "/who", Message: "got number, want string"}}},
		{``, `{"any":1}`, nil},
		// A value that may carry a password is not repeated.
		{url, `{"url":"htps://ops:sekrit@prom"}`, []Problem{{Path: "/url", Message: `does not match pattern "^https?://"`}}},
	}
	for _, tt := range tests {
		s, err := Compile(json.RawMessage(tt.schema))
		if err != nil {
			t.Fatalf("Compile(%s): %v", tt.schema, err)
		}
		err = s.Validate(json.RawMessage(tt.value))
		var got []Problem
		var se *Error
		if errors.As(err, &se) {
			got = se.Problems
		} else if err != nil {
			t.Fatalf("Validate(%s): %v, want *Error", tt.value, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Validate(%s) against %s\n got %+v\nwant %+v", tt.value, tt.schema, got, tt.want)
		}
	}
}

// A schema that refers to a file (or a URL) must not make the gateway read
// it: the file here is a valid schema that would compile if it were loaded.
func TestExternalReferencesAreRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "defs.json")
	if err := os.WriteFile(file, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + file, "http://127.0.0.1:1/defs.json", "defs.json"} {
		s := `{"type":"object","properties":{"a":{"$ref":"` + ref + `"}}}`
		_, err := Compile(json.RawMessage(s))
		if !errors.Is(err, ErrExternalRef) {
			t.Errorf("Compile with $ref %q: err = %v, want ErrExternalRef", ref, err)
			continue
		}
		if !strings.Contains(err.Error(), "only in-document references") {
			t.Errorf("error does not say what is allowed: %v", err)
		}
	}
}
