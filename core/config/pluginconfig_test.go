package config

import (
	"testing"
)

func TestFieldRange(t *testing.T) {
	t.Setenv("TG_TEST_TOKEN", "")
	c, err := Load("testdata/full.hcl")
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := c.Plugin("everything")
	hello, _ := c.Plugin("hello")
	tests := []struct {
		p    *Plugin
		path string
		want string
	}{
		{ev, "", "testdata/full.hcl:22:3"},         // the config block
		{ev, "command", "testdata/full.hcl:23:15"}, // a string value
		{ev, "args", "testdata/full.hcl:24:15"},    // the list
		{ev, "args.1", "testdata/full.hcl:24:22"},  // an element
		{ev, "/args/1", "testdata/full.hcl:24:22"}, // JSON pointer form
		{ev, "args.7", "testdata/full.hcl:24:15"},  // past the end: the list
		{ev, "headers.X-Id", "testdata/full.hcl:25:26"},
		{ev, "/headers/X-Id", "testdata/full.hcl:25:26"},
		{ev, "headers.Accept", "testdata/full.hcl:25:42"}, // computed by lower()
		{ev, "secret", "testdata/full.hcl:28:15"},
		{ev, "server", "testdata/full.hcl:29:5"}, // repeated blocks: the first
		{ev, "server.0", "testdata/full.hcl:29:5"},
		{ev, "server.1", "testdata/full.hcl:32:5"},
		{ev, "server.1.url", "testdata/full.hcl:33:13"},
		{ev, "upstream.eu", "testdata/full.hcl:35:5"}, // labelled block header
		{ev, "upstream.eu.weight", "testdata/full.hcl:36:16"},
		{ev, "nope.deeper", "testdata/full.hcl:22:3"}, // unknown: the config block
		{hello, "anything", "testdata/full.hcl:41:1"}, // no config block: the plugin header
		{hello, "", "testdata/full.hcl:41:1"},
	}
	for _, tt := range tests {
		if got := pos(tt.p.FieldRange(tt.path)); got != tt.want {
			t.Errorf("%s FieldRange(%q) = %s, want %s", tt.p.Name, tt.path, got, tt.want)
		}
	}
}

func TestPluginConfigJSON(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"absent", ``, `{}`},
		{"empty", `config {}`, `{}`},
		{"scalars", `config {
  s = "a<b>&c"
  n = -3
  f = 1.5e3
  big = 123456789012345678901234567890
  huge = 1e400
  tiny = 0.000001
  t = true
  z = null
}`, `{"big":123456789012345678901234567890,"f":1500,"huge":1e+400,"n":-3,"s":"a<b>&c","t":true,"tiny":1e-06,"z":null}`},
		{"nested collections", `config {
  l = [1, "two", [true], { k = "v" }]
  m = { "a.b" = 1, c = { d = [] } }
}`, `{"l":[1,"two",[true],{"k":"v"}],"m":{"a.b":1,"c":{"d":[]}}}`},
		{"blocks", `config {
  tls { verify = false }
  rule { match = "a" }
  rule { match = "b" }
  route "api" "v1" { to = "x" }
  route "api" "v2" { to = "y" }
  route "web" "v1" { to = "z" }
  route "web" "v1" { to = "w" }
}`, `{"route":{"api":{"v1":{"to":"x"},"v2":{"to":"y"}},"web":{"v1":[{"to":"z"},{"to":"w"}]}},"rule":[{"match":"a"},{"match":"b"}],"tls":{"verify":false}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "plugin \"x\" {\n  type = \"prometheus\"\n" + tt.body + "\n}\n"
			c, err := Parse([]byte(src), "toolgate.hcl")
			if err != nil {
				t.Fatal(err)
			}
			if got := string(c.Plugins[0].Config); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestPluginConfigRangesOfBlocks(t *testing.T) {
	src := `plugin "x" {
  type = "prometheus"
  config {
    route "api" "v1" {
      to = "x"
    }
    route "web" "v1" {
      to = "z"
    }
    route "web" "v1" {
      to = "w"
    }
    m = { "a.b" = 1 }
  }
}`
	c, err := Parse([]byte(src), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	fr := c.Plugins[0].FieldRange
	tests := map[string]string{
		"route":             "toolgate.hcl:4:5",
		"route.api.v1.to":   "toolgate.hcl:5:12",
		"route.web":         "toolgate.hcl:7:5",
		"route.web.v1":      "toolgate.hcl:7:5",
		"route.web.v1.1":    "toolgate.hcl:10:5",
		"route.web.v1.1.to": "toolgate.hcl:11:12",
		"/m/a.b":            "toolgate.hcl:13:19", // a key with a dot needs the pointer form
		"m.a.b":             "toolgate.hcl:13:9",
	}
	for path, want := range tests {
		if got := pos(fr(path)); got != want {
			t.Errorf("FieldRange(%q) = %s, want %s", path, got, want)
		}
	}
}
