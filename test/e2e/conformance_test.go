package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/testparts"
)

// conformanceScenarios are the official MCP conformance suite's server
// scenarios that apply to a gateway whatever plugins it runs: the others
// expect tools, prompts and resources of fixed names (test_simple_prompt,
// test://static-text) that only a purpose-built server has. So does
// completion-complete: it completes test_prompt_with_arguments, a prompt no
// plugin here serves, which MCP answers with invalid params.
var conformanceScenarios = []string{
	"server-initialize", "ping", "logging-set-level", "tools-list",
	"server-sse-polling", "server-sse-multiple-streams", "dns-rebinding-protection",
	"resources-list", "prompts-list",
}

// conformanceCheck is one check of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// TestConformance runs the official conformance suite against a gateway with
// server-everything behind it; every scenario must pass without a failure
// or a warning.
func TestConformance(t *testing.T) {
	node, suite := testparts.Conformance(t)
	g := startGateway(t, setup{Plugins: everythingPlugin(t, "everything", true)})
	c := connectHTTP(t, g.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.waitPlugin(ctx, "everything", 60*time.Second, running)
	c.close()

	for _, scenario := range conformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			out := t.TempDir()
			sctx, scancel := context.WithTimeout(ctx, 2*time.Minute)
			defer scancel()
			cmd := exec.CommandContext(sctx, node, suite, "server", "--url", g.URL, "--scenario", scenario, "-o", out)
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
			cmd.WaitDelay = 2 * time.Second
			report, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("conformance %s: %v\n%s", scenario, err, report)
			}
			files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
			if len(files) != 1 {
				t.Fatalf("conformance %s wrote %d checks.json files, want 1\n%s", scenario, len(files), report)
			}
			raw, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			var checks []conformanceCheck
			if err := json.Unmarshal(raw, &checks); err != nil {
				t.Fatalf("conformance %s checks.json: %v", scenario, err)
			}
			var statuses []string
			for _, ch := range checks {
				switch ch.Status {
				case "SUCCESS", "INFO":
				default:
					t.Errorf("%s: check %s is %s: %s %s", scenario, ch.ID, ch.Status, ch.Description, ch.ErrorMessage)
				}
				statuses = append(statuses, ch.ID+"="+ch.Status)
			}
			if len(checks) == 0 {
				t.Errorf("conformance %s ran no checks\n%s", scenario, report)
			}
			t.Logf("%s: %s", scenario, strings.Join(statuses, " "))
		})
	}
	g.requireAlive()
}
