package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// config validate checks plugin settings before anything runs: the plugin is
// started and asked for its config schema, never configured, and every
// problem is reported at once at its file:line:col.
func TestConfigValidateChecksPluginSettings(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hcl")
	src := fmt.Sprintf(`gateway {
  state_dir = %q
}

plugin "hello" {
  path = %q
  config {
    greeting = "hi"
  }
}

plugin "gone" {
  path = "./no-such-plugin"
}
`, filepath.Join(dir, "state"), bins.Hello)
	if err := os.WriteFile(bad, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := tg(t, nil, "config", "validate", bad)
	wantExit(t, r, 1, nil, []string{
		bad + `:8:16: plugin "hello": config.greeting: unknown setting`,
		bad + `:13:10: plugin "gone": executable ` + filepath.Join(dir, "no-such-plugin") + ` does not exist`,
	})

	good := filepath.Join(dir, "good.hcl")
	if err := os.WriteFile(good, []byte(fmt.Sprintf("plugin \"hello\" {\n  path = %q\n}\n", bins.Hello)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = tg(t, []string{"XDG_STATE_HOME=" + dir}, "config", "validate", good)
	wantExit(t, r, 0, []string{"ok (1 plugins)"}, nil)
}
