package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestOAuthBlock(t *testing.T) {
	c, err := Parse([]byte(`listen {
  http  = "0.0.0.0:8700"
  token = "for-the-metrics-scraper"
  oauth {
    issuer   = "https://auth.example.com"
    audience = "https://gw.example.com/mcp"
    jwks_url = "https://auth.example.com/keys"
    scopes   = ["mcp", "tools:call"]
    resource = "https://gw.example.com/mcp"
  }
}`), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	want := &OAuth{
		Issuer: "https://auth.example.com", Audience: "https://gw.example.com/mcp",
		JWKSURL: "https://auth.example.com/keys", Scopes: []string{"mcp", "tools:call"},
		Resource: "https://gw.example.com/mcp",
	}
	if !reflect.DeepEqual(c.Listen.OAuth, want) {
		t.Errorf("OAuth = %+v, want %+v", c.Listen.OAuth, want)
	}
	if !reflect.DeepEqual(c.Listen.Tokens, []string{"for-the-metrics-scraper"}) {
		t.Errorf("Tokens = %q: static tokens stay beside OAuth", c.Listen.Tokens)
	}

	for _, tc := range []struct {
		src  string
		want *OAuth
	}{
		{`listen {
  oauth {
    issuer   = "https://auth.example.com/tenant1"
    audience = "api://toolgate"
  }
}`, &OAuth{Issuer: "https://auth.example.com/tenant1", Audience: "api://toolgate"}},
		{`listen {
  oauth {
    issuer   = "http://127.0.0.1:9000"
    audience = "http://127.0.0.1:8700/mcp"
    jwks_url = "http://localhost:9000/jwks"
  }
}`, &OAuth{Issuer: "http://127.0.0.1:9000", Audience: "http://127.0.0.1:8700/mcp", JWKSURL: "http://localhost:9000/jwks"}},
		{`listen {}`, nil},
	} {
		c, err := Parse([]byte(tc.src), "toolgate.hcl")
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		if !reflect.DeepEqual(c.Listen.OAuth, tc.want) {
			t.Errorf("%s:\nOAuth = %+v, want %+v", tc.src, c.Listen.OAuth, tc.want)
		}
	}
}

func TestOAuthWarnings(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"listen {\n  http = \"0.0.0.0:8700\"\n  oauth {\n    issuer = \"https://a.example.com\"\n    audience = \"x\"\n  }\n}",
			`toolgate.hcl:2:10: listen address "0.0.0.0:8700" is not loopback, so other hosts can reach the gateway; without tls_cert and tls_key, tokens cross the network in clear text`},
	} {
		c, err := Parse([]byte(tc.src), "toolgate.hcl")
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Warnings) != 1 || c.Warnings[0] != tc.want {
			t.Errorf("%s:\nwarnings %q\nwant %q", tc.src, c.Warnings, tc.want)
		}
	}
}

func TestOAuthErrors(t *testing.T) {
	block := func(attrs string) string { return "listen {\n  oauth {\n" + attrs + "  }\n}" }
	const good = "    issuer   = \"https://auth.example.com\"\n    audience = \"https://gw.example.com/mcp\"\n"
	for _, tc := range []struct{ name, src, want string }{
		{"no issuer", block("    audience = \"a\"\n"),
			`toolgate.hcl:2:9: Missing required argument; The argument "issuer" is required, but no definition was found.`},
		{"no audience", block("    issuer = \"https://auth.example.com\"\n"),
			`toolgate.hcl:2:9: Missing required argument; The argument "audience" is required, but no definition was found.`},
		{"empty audience", block("    issuer   = \"https://auth.example.com\"\n    audience = \"\"\n"),
			`toolgate.hcl:4:16: audience is empty; write the audience the authorization server puts in tokens for this gateway`},
		{"issuer not a URL", block("    issuer   = \"auth.example.com\"\n    audience = \"a\"\n"),
			`toolgate.hcl:3:16: invalid issuer "auth.example.com"; write an https:// URL, such as "https://auth.example.com"`},
		{"issuer over plain http", block("    issuer   = \"http://auth.example.com\"\n    audience = \"a\"\n"),
			`toolgate.hcl:3:16: issuer "http://auth.example.com" must use https: signing keys fetched over plain http could be replaced on the way (http is accepted for a loopback host only)`},
		{"issuer with credentials", block("    issuer   = \"https://client:s3cret@auth.example.com\"\n    audience = \"a\"\n"),
			`toolgate.hcl:3:16: invalid issuer "https://client:xxxxx@auth.example.com": an issuer carries no user name or password`},
		{"issuer with a query", block("    issuer   = \"https://auth.example.com/?tenant=1\"\n    audience = \"a\"\n"),
			`toolgate.hcl:3:16: invalid issuer "https://auth.example.com/?tenant=1": an issuer has no query`},
		{"jwks_url over plain http", block(good + "    jwks_url = \"http://10.0.0.5/jwks\"\n"),
			`toolgate.hcl:5:16: jwks_url "http://10.0.0.5/jwks" must use https`},
		{"jwks_url relative", block(good + "    jwks_url = \"/jwks\"\n"),
			`toolgate.hcl:5:16: invalid jwks_url "/jwks"; write an https:// URL, such as "https://auth.example.com/.well-known/jwks.json"`},
		{"resource not a URL", block(good + "    resource = \"gw.example.com/mcp\"\n"),
			`toolgate.hcl:5:16: invalid resource "gw.example.com/mcp"; write the URL clients reach the gateway's /mcp at, such as "https://gw.example.com/mcp"`},
		{"scopes in one string", block(good + "    scopes   = [\"mcp tools\"]\n"),
			`toolgate.hcl:5:16: invalid scope "mcp tools": a scope is printable ASCII without spaces, quotes or backslashes; list several as separate strings`},
		{"empty scope", block(good + "    scopes   = [\"mcp\", \"\"]\n"),
			`toolgate.hcl:5:16: invalid scope "": a scope is not empty`},
		{"misspelt attribute", block(good + "    jwks_uri = \"https://auth.example.com/keys\"\n"),
			`toolgate.hcl:5:5: Unsupported argument; An argument named "jwks_uri" is not expected here. Did you mean "jwks_url"?`},
		{"two blocks", "listen {\n  oauth {\n" + good + "  }\n  oauth {\n" + good + "  }\n}",
			`toolgate.hcl:6:3: Duplicate oauth block`},
		{"scopes not a list", block(good + "    scopes   = \"mcp\"\n"),
			`toolgate.hcl:5:17: Unsuitable value type; Unsuitable value: list of string required, but have string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := parseErr(t, tc.src)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to contain\n%s", err, tc.want)
			}
			// Every problem names its place; none is a cascade of another.
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "toolgate.hcl:") || strings.Contains(line, ":0:0:") {
					t.Errorf("error line without a place in the file: %q", line)
				}
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}
