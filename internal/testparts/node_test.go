package testparts

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRunNodeJSON(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	echo := script("echo.mjs", `console.log(JSON.stringify({env: process.env.GREETING, args: process.argv.slice(2)}));`)

	var got struct {
		Env  string
		Args []string
	}
	RunNodeJSON(t, 30*time.Second, &got, []string{"GREETING=hi"}, echo, "a", "b c")
	if got.Env != "hi" || !reflect.DeepEqual(got.Args, []string{"a", "b c"}) {
		t.Errorf("got %+v, want env hi and args [a, b c]", got)
	}

	failures := []struct {
		name, script string
		timeout      time.Duration
		mentions     []string
	}{
		{"exits non-zero", script("fail.mjs", `console.error("boom"); process.exit(3);`), 30 * time.Second,
			[]string{"fail.mjs x", "exit status 3", "boom"}},
		{"prints no JSON", script("prose.mjs", `console.log("hello"); console.error("said hello");`), 30 * time.Second,
			[]string{"prose.mjs x: output", "hello", "said hello"}},
		{"outlives its timeout", script("hang.mjs", `setTimeout(() => {}, 60000);`), 300 * time.Millisecond,
			[]string{"hang.mjs x", "killed"}},
	}
	for _, f := range failures {
		t.Run(f.name, func(t *testing.T) {
			rec := &fatalRecorder{TB: t}
			var out any
			RunNodeJSON(rec, f.timeout, &out, nil, f.script, "x")
			if len(rec.fatals) != 1 {
				t.Fatalf("got %d fatal errors, want 1: %q", len(rec.fatals), rec.fatals)
			}
			for _, want := range f.mentions {
				if !strings.Contains(rec.fatals[0], want) {
					t.Errorf("fatal message %q does not mention %q", rec.fatals[0], want)
				}
			}
		})
	}
}
