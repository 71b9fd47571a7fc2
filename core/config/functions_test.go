package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tokenOf parses a config whose token is the given expression and returns the token.
func tokenOf(t *testing.T, dir, expr string) (string, error) {
	t.Helper()
	src := "listen {\n  token = " + expr + "\n}\n"
	c, err := Parse([]byte(src), filepath.Join(dir, "toolgate.hcl"))
	if err != nil {
		return "", err
	}
	if len(c.Listen.Tokens) == 0 {
		return "", nil
	}
	return c.Listen.Tokens[0], nil
}

func TestFunctions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "token.txt"), []byte("from-file"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token-nl.txt"), []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "binary"), []byte{0xff, 0xfe}, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, maxFileFuncBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TG_FN_SET", "from-env")
	t.Setenv("TG_FN_EMPTY", "")
	os.Unsetenv("TG_FN_UNSET")

	tests := []struct {
		expr, want, wantErr string
	}{
		{expr: `env("TG_FN_SET")`, want: "from-env"},
		{expr: `env("TG_FN_SET", "fallback")`, want: "from-env"},
		{expr: `env("TG_FN_UNSET", "fallback")`, want: "fallback"},
		{expr: `env("TG_FN_EMPTY", "fallback")`, want: ""}, // set-but-empty is set; the empty token is then dropped
		{expr: `env("TG_FN_UNSET")`,
			wantErr: `toolgate.hcl:2:11: Error in function call; Call to function "env" failed: environment variable "TG_FN_UNSET" is not set and no default is given.`},
		{expr: `env("A", "b", "c")`,
			wantErr: `toolgate.hcl:2:26: Invalid function argument; Invalid value for "default" parameter: env takes a name and at most one default.`},
		{expr: `file("token.txt")`, want: "from-file"},
		{expr: `file("` + filepath.Join(dir, "token.txt") + `")`, want: "from-file"},
		{expr: `file("token-nl.txt")`, want: "from-file"}, // as `openssl rand -hex 32 > token` writes it
		{expr: `"  padded  "`, want: "padded"},
		{expr: `upper(file("token.txt"))`, want: "FROM-FILE"},
		{expr: `lower("ABC")`, want: "abc"},
		{expr: `file("missing.txt")`, wantErr: `no such file or directory`},
		{expr: `file("/dev/null")`, wantErr: `/dev/null: not a regular file`},
		{expr: `file(".")`, wantErr: `not a regular file`},
		{expr: `file("binary")`, wantErr: `is not valid UTF-8 text`},
		{expr: `file("big")`, wantErr: `is larger than 1048576 bytes`},
	}
	for _, tt := range tests {
		got, err := tokenOf(t, dir, tt.expr)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.expr, err)
		case tt.wantErr == "" && got != tt.want:
			t.Errorf("%s = %q, want %q", tt.expr, got, tt.want)
		case tt.wantErr != "" && err == nil:
			t.Errorf("%s = %q, want error %q", tt.expr, got, tt.wantErr)
		case tt.wantErr != "" && (!strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: error\n%v\nwant one line containing\n%s", tt.expr, err, tt.wantErr)
		}
	}
	// Positions of function errors are absolute to the file, not to the expression.
	if _, err := tokenOf(t, dir, `file("missing.txt")`); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "toolgate.hcl")+":2:11: ") {
		t.Errorf("file() error not at the call site: %v", err)
	}
}

func TestResolvePath(t *testing.T) {
	t.Setenv("HOME", "/home/op")
	tests := []struct{ base, p, want string }{
		{"/etc/tg", "./bin/x", "/etc/tg/bin/x"},
		{"/etc/tg", "bin/../x", "/etc/tg/x"},
		{"/etc/tg", "/opt/x", "/opt/x"},
		{"/etc/tg", "~/x", "/home/op/x"},
		{"/etc/tg", "~", "/home/op"},
		{"/etc/tg", "~op/x", "/etc/tg/~op/x"},
		{"", "rel/x", "rel/x"},
	}
	for _, tt := range tests {
		if got := resolvePath(tt.base, tt.p); got != tt.want {
			t.Errorf("resolvePath(%q, %q) = %q, want %q", tt.base, tt.p, got, tt.want)
		}
	}
}
