package main

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/toolgate/toolgate/core/client/gatewaytest"
	"github.com/toolgate/toolgate/core/config"
)

// http = "" is the config's way to say "no HTTP front": without --stdio there
// is then nothing to serve, and serve says so instead of listening on every
// interface at a random port.
func TestServeWithoutHTTPNeedsStdio(t *testing.T) {
	cfg, err := config.Parse([]byte("listen {\n  http = \"\"\n}\n"), "toolgate.hcl")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = serve(ctx, cfg, hclog.NewNullLogger(), nil, nil, func(a net.Addr) {
		t.Errorf("served HTTP at %s", a)
	})
	if err == nil || !strings.Contains(err.Error(), `listen.http is "" (no HTTP front)`) || !strings.Contains(err.Error(), "--stdio") {
		t.Fatalf("serve error = %v, want one saying there is nothing to serve", err)
	}
}

// Over stdio, stderr is all an IDE shows of the gateway: it says at once that
// the gateway serves, and which config it read.
func TestServeStdioSaysWhichConfig(t *testing.T) {
	cfg := bins.HelloConfig(t, t.TempDir(), "")
	r := tg(t, nil, "serve", "--stdio", "--config", cfg) // stdin is empty: it ends at once
	wantExit(t, r, 0, nil, []string{"serving MCP on stdin/stdout: config=" + cfg + " plugins=1"})
}

// Over HTTP too the log says which config the gateway read, here the one
// $TOOLGATE_CONFIG names.
func TestServeHTTPSaysWhichConfig(t *testing.T) {
	cfg := bins.HelloConfig(t, t.TempDir(), "")
	gw := gatewaytest.Start(t, bins.Toolgate, "", "TOOLGATE_CONFIG="+cfg)
	want := "config=" + cfg + " plugins=1"
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(gw.Stderr(), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the gateway's log does not say %q:\n%s", want, gw.Stderr())
		}
	}
}

// shutdown_grace = "0s" means no grace: SIGTERM with a long call in flight
// ends the gateway and its plugins at once instead of after the 10 s default.
func TestZeroShutdownGraceDoesNotWait(t *testing.T) {
	gw := gatewaytest.Start(t, bins.Toolgate, bins.HelloConfig(t, t.TempDir(), ""), "TOOLGATE_SHUTDOWN_GRACE=0s")
	url := "--url=" + gw.URL
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(tg(t, nil, "plugins", "status", "hello", url).stdout, "running") {
		if time.Now().After(deadline) {
			t.Fatalf("hello plugin did not start:\n%s", gw.Stderr())
		}
		time.Sleep(50 * time.Millisecond)
	}
	go func() {
		_, _, _, _ = gatewaytest.Run(context.Background(), bins.Toolgate, nil, "call", "x_hello_count", "--arg", "to=100", "--arg", "delay_ms=100", url)
	}()
	time.Sleep(time.Second) // the call is under way
	start := time.Now()
	gw.Stop()
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("SIGTERM with shutdown_grace 0s took %v to end the gateway, want no grace\n%s", d, gw.Stderr())
	}
}

// serve logs a misspelt TOOLGATE_* variable at start, naming the one meant.
func TestServeWarnsOfMisspeltVariables(t *testing.T) {
	cfg := bins.HelloConfig(t, t.TempDir(), "")
	r := tg(t, []string{"TOOLGATE_CALLTIMEOUT=5s"}, "serve", "--stdio", "--config", cfg) // stdin is empty: it ends at once
	wantExit(t, r, 0, nil, []string{"[WARN]  toolgate: environment: TOOLGATE_CALLTIMEOUT is not a variable toolgate reads, so it changes nothing; did you mean TOOLGATE_CALL_TIMEOUT?"})
}

// serve refuses to open every tool to the network unauthenticated, whether
// the address comes from the file, a flag or the environment, before it
// binds anything or starts a plugin.
func TestServeRefusesTheNetworkWithoutAuth(t *testing.T) {
	cfg := bins.HelloConfig(t, t.TempDir(), "")
	r := tg(t, nil, "serve", "--config", cfg, "--http", "0.0.0.0:18402")
	wantExit(t, r, 2, nil, []string{`--http: listen address "0.0.0.0:18402" is not loopback and no token or oauth is configured`, "allow_unauthenticated = true"})
	r = tg(t, []string{"TOOLGATE_LISTEN_HTTP=[::]:18403"}, "serve", "--config", cfg)
	wantExit(t, r, 2, nil, []string{`TOOLGATE_LISTEN_HTTP: listen address "[::]:18403" is not loopback`, "TOOLGATE_LISTEN_ALLOW_UNAUTHENTICATED=true"})
}
