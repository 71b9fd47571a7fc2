package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/core/client/gatewaytest"
)

// bins are the toolgate and hello-plugin binaries, built once for the
// package's tests: the CLI is tested as users run it, as a process.
var bins *gatewaytest.Binaries

func TestMain(m *testing.M) { gatewaytest.Main(m, &bins, nil) }

type result struct {
	stdout, stderr string
	code           int
}

// tg runs the binary; env entries are added to the environment.
func tg(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, errOut, code, err := gatewaytest.Run(ctx, bins.Toolgate, env, args...)
	if err != nil {
		t.Fatalf("toolgate %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errOut)
	}
	return result{out, errOut, code}
}

// helloGateway runs a gateway with the hello plugin and returns its URL
// flag.
func helloGateway(t *testing.T, extra ...string) (*gatewaytest.Gateway, string) {
	t.Helper()
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), strings.Join(extra, "\n")))
	// hello starts with the gateway; its tools are there once it runs.
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := tg(t, nil, "plugins", "status", "hello", "--url", gw.URL)
		if strings.Contains(r.stdout, "running") {
			return gw, "--url=" + gw.URL
		}
		if time.Now().After(deadline) {
			t.Fatalf("hello plugin did not start: %+v\n%s", r, gw.Stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func wantExit(t *testing.T, r result, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, r.stdout)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
}

func TestConfigStartsGatewayInProcess(t *testing.T) {
	cfg := bins.HelloConfig(t, t.TempDir(), "")
	start := time.Now()
	r := tg(t, nil, "call", "x_hello_greet", "--arg", "name=Ada", "--config", cfg)
	wantExit(t, r, 0, []string{"Hello, Ada!"}, nil)
	t.Logf("call with an in-process gateway: %s", time.Since(start).Round(time.Millisecond))

	r = tg(t, nil, "tools", "list", "--config", cfg, "--url", "http://127.0.0.1:1/mcp")
	wantExit(t, r, 2, nil, []string{"either --url or --config"})
}

// A client command's in-process gateway tells the config's warnings as serve
// does: once, on stderr, so -o json output stays JSON.
func TestConfigWarnsAsServeDoes(t *testing.T) {
	cfg := bins.HelloConfig(t, t.TempDir(), `listen {
  http  = "0.0.0.0:18150"
  token = "s3cret"
}`)
	r := tg(t, []string{"TOOLGATE_CALLTIMEOUT=5s"}, "tools", "list", "--config", cfg, "-o", "json")
	wantExit(t, r, 0, nil, nil)
	var list struct{ Total int }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || list.Total != 4 {
		t.Errorf("tools list -o json with warnings: %v %+v\n%s", err, list, r.stdout)
	}
	for _, want := range []string{
		`listen address "0.0.0.0:18150" is not loopback`,
		"environment: TOOLGATE_CALLTIMEOUT is not a variable toolgate reads, so it changes nothing; did you mean TOOLGATE_CALL_TIMEOUT?",
	} {
		if n := strings.Count(r.stderr, want); n != 1 {
			t.Errorf("stderr says %q %d times, want once:\n%s", want, n, r.stderr)
		}
	}
}

func TestBadOutputFormat(t *testing.T) {
	r := tg(t, nil, "tools", "list", "-o", "yaml", "--url", "http://127.0.0.1:1/mcp")
	wantExit(t, r, 2, nil, []string{`-o "yaml": want table or json`})
}

// A --limit below 1 or a negative --offset is refused before any call
// (no gateway listens here), instead of showing the gateway's default page.
func TestBadPageFlags(t *testing.T) {
	url := "--url=http://" + gatewaytest.FreeAddr(t) + "/mcp"
	for _, args := range [][]string{
		{"tools", "list", "--limit", "0"},
		{"tools", "search", "pods", "--limit", "-1"},
		{"resources", "list", "--offset", "-3"},
		{"prompts", "list", "--limit", "0"},
	} {
		r := tg(t, nil, append(args, url)...)
		wantExit(t, r, 2, nil, []string{"want "})
		if strings.Contains(r.stderr, "cannot reach") {
			t.Errorf("%v reached for the gateway: %s", args, r.stderr)
		}
	}
}

func TestUnreachableGateway(t *testing.T) {
	r := tg(t, nil, "tools", "list", "--url", "http://"+gatewaytest.FreeAddr(t)+"/mcp")
	wantExit(t, r, 2, nil, []string{"cannot reach the gateway"})
}

func TestBearerToken(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""), "TOOLGATE_TOKEN=s3cret")
	r := tg(t, []string{"TOOLGATE_TOKEN="}, "plugins", "--url", gw.URL)
	wantExit(t, r, 2, nil, []string{"HTTP 401", "--token"})
	r = tg(t, []string{"TOOLGATE_TOKEN="}, "plugins", "--url", gw.URL, "--token", "s3cret")
	wantExit(t, r, 0, []string{"hello"}, nil)
	r = tg(t, []string{"TOOLGATE_TOKEN=s3cret"}, "plugins", "--url", gw.URL)
	wantExit(t, r, 0, []string{"hello"}, nil)
}
