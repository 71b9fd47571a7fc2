package plugin_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/sdk/plugin"
)

// servedByHand makes this test binary a plugin run by hand, for
// TestRunByHandSaysWhatToDo.
const servedByHand = "TOOLGATE_SDK_TEST_SERVE_BY_HAND"

func TestMain(m *testing.M) {
	if os.Getenv(servedByHand) != "" {
		plugin.Serve(&plugin.Plugin{Name: "notes", Tools: []plugin.Tool{
			plugin.NewTool("t", "", func(context.Context, *plugin.Call, struct{}) (*plugin.Result, error) { return plugin.Text(""), nil })}})
		return
	}
	os.Exit(m.Run())
}

// A newcomer runs the binary they built; it says it is a toolgate plugin and
// gives the config block that runs it, not go-plugin's generic refusal. Run
// with arguments (as toolgate runs its built-ins), it gives no block, whose
// `path` would run it without them.
func TestRunByHandSaysWhatToDo(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), servedByHand+"=1", "TOOLGATE_PLUGIN=")
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("exit: %v, want status 1\n%s", err, out)
		}
		return string(out)
	}
	out := run()
	for _, want := range []string{exe + " is a toolgate plugin", `plugin "notes" {`, `path = "` + exe + `"`, "plugintest.ServePlugin"} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not say %q:\n%s", want, out)
		}
	}
	out = run("plugin", "serve", "notes")
	if !strings.Contains(out, "is a toolgate plugin") || strings.Contains(out, "path =") {
		t.Errorf("run with arguments, the output should say what it is and give no block:\n%s", out)
	}
}
