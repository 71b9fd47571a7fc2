package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestCallCommand(t *testing.T) {
	_, url := helloGateway(t)

	r := tg(t, nil, "call", "x_hello_greet", "--arg", "name=Ada", "--arg", "language=fr", url)
	wantExit(t, r, 0, []string{"Bonjour, Ada!"}, nil)

	r = tg(t, nil, "call", "x_hello_greet", "--json", `{"name":"Bob","language":"de"}`, "--arg", "name=Eve", url, "-o", "json")
	wantExit(t, r, 0, nil, nil)
	var res struct {
		Content           []struct{ Type, Text string }
		StructuredContent map[string]string
		IsError           bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.StructuredContent["greeting"] != "Hallo, Eve!" || res.IsError {
		t.Errorf("call -o json: %v %+v\n%s", err, res, r.stdout)
	}

	// The tool's isError answer: exit status 1, its text on stderr.
	r = tg(t, nil, "call", "x_hello_greet", "--arg", "name= ", url)
	wantExit(t, r, 1, nil, []string{"name must not be empty"})
	r = tg(t, nil, "call", "x_hello_greet", "--arg", "name= ", url, "-o", "json")
	wantExit(t, r, 1, []string{`"isError": true`}, nil)
	// Schema-typed arguments: "to" is an integer; a word is refused before any call.
	r = tg(t, nil, "call", "x_hello_count", "--arg", "to=three", url)
	wantExit(t, r, 2, nil, []string{"--arg to: want an integer"})
	r = tg(t, nil, "call", "x_hello_nope", url)
	wantExit(t, r, 1, nil, []string{"x_hello_"})
	// A key the schema does not name is refused before any call, with the
	// names it has; --json still passes it.
	r = tg(t, nil, "call", "x_hello_greet", "--arg", "nmae=Ada", url)
	wantExit(t, r, 2, nil, []string{`--arg nmae: x_hello_greet has no argument "nmae"; its arguments: language, name`})

	// --json that is not an object, and a negative --timeout, are usage
	// errors said in JSON's and the flag's words, before any call.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", `[1]`}, `--json: want a JSON object of arguments, such as {"name": "Ada"}, not an array`},
		{[]string{"--json", `null`}, `--json: want a JSON object of arguments, such as {"name": "Ada"}, not null`},
		{[]string{"--json", `{bad`}, `--json: not valid JSON: invalid character 'b'`},
		{[]string{"--arg", "name=Ada", "--timeout", "-1s"}, `--timeout -1s: want a positive time limit`},
	} {
		r = tg(t, nil, append([]string{"call", "x_hello_greet", url}, tt.args...)...)
		wantExit(t, r, 2, nil, []string{tt.want})
	}

	// Progress goes to stderr (one line per update when it is not a terminal).
	r = tg(t, nil, "call", "x_hello_count", "--arg", "to=3", "--arg", "delay_ms=10", url)
	wantExit(t, r, 0, []string{"counted to 3"}, []string{"1/3 counted 1", "2/3 counted 2", "[##############################] 3/3 counted 3"})
	if strings.Contains(r.stdout, "counted 1") {
		t.Errorf("progress on stdout:\n%s", r.stdout)
	}
}

func TestCallSavesImages(t *testing.T) {
	_, url := helloGateway(t)
	r := tg(t, nil, "call", "x_hello_pixel", url)
	wantExit(t, r, 0, []string{"[image image/png, 70 bytes; pass --out DIR to save it]"}, nil)
	if strings.Contains(r.stdout, "iVBOR") {
		t.Errorf("base64 dumped:\n%s", r.stdout)
	}

	dir := t.TempDir()
	r = tg(t, nil, "call", "x_hello_pixel", url, "--out", dir)
	want := filepath.Join(dir, "x_hello_pixel-1.png")
	wantExit(t, r, 0, []string{"saved to " + want}, nil)
	png, err := os.ReadFile(want)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("saved image: %v %q", err, png)
	}

	dir = t.TempDir()
	r = tg(t, nil, "call", "x_hello_pixel", url, "--out", dir, "-o", "json")
	wantExit(t, r, 0, []string{`"file": "` + filepath.Join(dir, "x_hello_pixel-1.png")}, nil)
	if strings.Contains(r.stdout, `"data"`) {
		t.Errorf("-o json --out still carries the data:\n%s", r.stdout)
	}
	r = tg(t, nil, "call", "x_hello_pixel", url, "-o", "json")
	if !strings.Contains(r.stdout, base64.StdEncoding.EncodeToString(png[:12])[:12]) {
		t.Errorf("-o json without --out lacks the image data:\n%s", r.stdout)
	}
}

func TestTypedValue(t *testing.T) {
	for _, tc := range []struct {
		schema, value string
		want          any
		err           string
	}{
		{`{"type":"string"}`, "42", "42", ""},
		{`{"type":"integer"}`, "42", int64(42), ""},
		{`{"type":"integer"}`, "4.2", nil, "want an integer"},
		{`{"type":"number"}`, "4.5", 4.5, ""},
		{`{"type":"boolean"}`, "true", true, ""},
		{`{"type":"boolean"}`, "yes", nil, "want true or false"},
		{`{"type":"array","items":{"type":"integer"}}`, "1, 2,3", []any{int64(1), int64(2), int64(3)}, ""},
		{`{"type":"array"}`, `["a",1]`, []any{"a", float64(1)}, ""},
		{`{"type":"object"}`, `{"a":1}`, map[string]any{"a": float64(1)}, ""},
		{`{"type":"object"}`, `a=1`, nil, "want a JSON object"},
		{`{"type":["integer","null"]}`, "null", nil, ""},
		{`{"type":["integer","string"]}`, "x", "x", ""},
		{``, "7", float64(7), ""},
		{``, "seven", "seven", ""},
	} {
		got, err := typedValue(json.RawMessage(tc.schema), tc.value)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: error %v, want %q", tc.schema, tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q = %#v, %v; want %#v", tc.schema, tc.value, got, err, tc.want)
		}
	}
}

// pflag gives --arg the next word even when it is one of call's flags: a
// forgotten key=value is refused instead of swallowing the flag, and a
// value that starts with dashes still goes through after its key.
func TestCallArgThatIsAFlag(t *testing.T) {
	for _, arg := range []string{"--url=http://127.0.0.1:1/other", "--yes", "-y", "--timeout=5s"} {
		r := tg(t, nil, "call", "x_hello_echo", "--arg", arg, "--url=http://127.0.0.1:1/mcp")
		wantExit(t, r, 2, nil, []string{"--arg " + strconv.Quote(arg) + ": that is call's flag", "--arg key=" + arg})
	}
	_, url := helloGateway(t)
	r := tg(t, nil, "call", "x_hello_echo", "--arg", "text=--url", url)
	wantExit(t, r, 0, []string{"--url"}, nil)
}

// A failed call is followed by advice in the CLI's words, not only the
// gateway's, which names meta-tools an assistant calls.
func TestCallHintsInCLIWords(t *testing.T) {
	_, url := helloGateway(t)
	r := tg(t, nil, "call", "x_nope", url)
	wantExit(t, r, 1, nil, []string{`error: no tool named "x_nope"`, `hint: toolgate tools search "what it should do" finds tools by what they do`})

	r = tg(t, nil, "call", "x_hello_count", "--arg", "to=3", "--arg", "delay_ms=2000", "--timeout", "100ms", url)
	wantExit(t, r, 1, nil, []string{"error: the call to x_hello_count ran out of time (--timeout 100ms)\nhint: --timeout (such as --timeout 5m) allows it longer"})

	r = tg(t, nil, "plugins", "stop", "hello", url)
	wantExit(t, r, 0, nil, nil)
	r = tg(t, nil, "call", "x_hello_echo", "--arg", "text=hi", url)
	wantExit(t, r, 1, nil, []string{"error: cannot call x_hello_echo: plugin hello is stopped\nhint: toolgate plugins start hello starts it"})

	// A tool's own failure while its plugin runs gets no advice.
	r = tg(t, nil, "plugins", "start", "hello", url)
	wantExit(t, r, 0, nil, nil)
	r = tg(t, nil, "call", "x_hello_greet", "--arg", "name=Ada", "--arg", "language=xx", url)
	if strings.Contains(r.stderr, "hint:") {
		t.Errorf("a tool's own error got a hint: %+v", r)
	}
}
